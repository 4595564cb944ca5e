"""bench/load.py's parts: the processes it runs (``stack``), the teams it makes (``teams``), the virtual
users (``client``, ``mix``), the invariants (``invariants``) and the report (``report``)."""
