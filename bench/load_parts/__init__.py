"""bench/load.py's parts: the processes it runs (``stack``), the teams it makes (``teams``), the virtual users
(``client``, ``ledger``, ``users``, ``operator``), the figures (``figures``, ``report``) and the invariants
(``invariants``: the rules; ``checks``: reading back and applying them)."""
