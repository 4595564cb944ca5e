"""Django's relational database (tenants, memberships, sessions) and the full-text search index in it."""

from __future__ import annotations

from tracker.env import ROOT, env

# ---------------------------------------------------------------------------------------------
# Relational database: Django's own tables, tenants and memberships — never tracker data
# ---------------------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{ROOT / 'var' / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web process and the Celery worker (search indexing) write the same file: a writer waits
    # up to 20 s for the other (busy timeout) and takes the lock when its transaction begins, so two
    # writers never deadlock upgrading a read; tracker.search.apps turns on WAL (readers never wait).
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
# Full-text search (tracker/search): RCU per second `search_index rebuild|check` may read from DynamoDB
SEARCH_INDEX_RCU_PER_SECOND = env.float("SEARCH_INDEX_RCU_PER_SECOND", default=200.0)
# Every recorded change queues its search document's update (off in the test settings: see there)
SEARCH_INDEX_QUEUE = True
