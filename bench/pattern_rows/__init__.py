"""The rows of ``bench/patterns.py``: each access pattern's floor, its workload, and the verdicts.

``rows``: DynamoDB's floor of every row, DynamoDB Local's difference and any named overhead, per
call (``ROWS``). ``workload``: the ``Workload`` that calls ddbmodels and adds the floors up, and
``judge_rows``. ``collections`` and ``others``: the workload itself, pattern by pattern.
``chart``: the bar chart of ``--plot``.
"""
