"""The parts of ``bench/issue_lists.py``: the team it loads (``shape``) and its chart (``chart``)."""
