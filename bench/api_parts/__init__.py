"""bench/api_check.py's parts: the world it starts from (``setup``), its HTTP client (``client``), the proxy that
loses DynamoDB's answers (``lossy``), the webhook receiver (``receiver``) and the checks (``checks``, ``answers``)."""
