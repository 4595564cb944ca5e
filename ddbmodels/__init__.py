"""DynamoDB models and access patterns of Tracker. Imports nothing from Django.

Three layers, imports going one way (``docs/architecture.md``):

- ``ddbmodels.core`` — connection and table registry, the error tree, the capacity meter,
  retry, key helpers, table lifecycle;
- ``ddbmodels.patterns`` — the access patterns as generic functions over a model (sort-key
  sequence, counters, sparse index, sharded index, leaderboard, pagination, distinct keys,
  time-series tables); they import ``core`` only;
- one package per table (``issues``, ``labels``, ``orders``, ``counters``, ``attachments``, ``comments``,
  ``scores``, ``events``, ``jobs``, ``idempotency``, ``inbox``, ``milestones``, ``preferences``), each
  ``model`` + ``writes`` + ``reads`` on top of the patterns; ``tenants`` works across them (is anything
  stored for a tenant, offboarding).

Importing the package is cheap: its names load on first use (PEP 562), so ``python -m ddbmodels``
starts without importing PynamoDB or any table. ``load()`` imports every table package, which
registers its model (``core.tables.create_all`` creates them); ``connection.registered()`` calls
it first, so the registry is whole however the package was imported. The capacity meter's
botocore hook is installed when ``core.capacity`` is first imported (every table imports it),
the hot-keys sampler when ``core.hot_keys`` is (``tracker.hot_key_stats`` does, at start-up).
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any

from ddbmodels.core import connection

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers
    from ddbmodels import (
        attachments,
        comments,
        counters,
        events,
        idempotency,
        inbox,
        issues,
        jobs,
        labels,
        milestones,
        orders,
        preferences,
        scores,
        webhooks,
    )
    from ddbmodels.core import capacity, hot_keys, tables
    from ddbmodels.core.connection import DynamoSettings, configure, current, registered, table_name
    from ddbmodels.core.errors import (
        AlreadyExists,
        ChangedSinceRead,
        Contention,
        DomainError,
        InvalidInput,
        InvalidTransition,
        NotFound,
        SequenceContention,
        Unavailable,
    )
    from ddbmodels.issues import PRIORITIES, STATUSES, TRANSITIONS, CollectionItem, IssueItem, ProjectItem

TABLE_PACKAGES = (
    "attachments",
    "comments",
    "counters",
    "events",
    "idempotency",
    "inbox",
    "issues",
    "jobs",
    "labels",
    "milestones",
    "orders",
    "preferences",
    "scores",
    "webhooks",
)
_MODULES = {
    **{name: f"ddbmodels.{name}" for name in TABLE_PACKAGES},
    "capacity": "ddbmodels.core.capacity",
    "connection": "ddbmodels.core.connection",
    "hot_keys": "ddbmodels.core.hot_keys",
    "tables": "ddbmodels.core.tables",
}
_EXPORTED = {
    "ddbmodels.core.connection": ("DynamoSettings", "configure", "current", "registered", "table_name"),
    "ddbmodels.core.errors": (
        "AlreadyExists",
        "ChangedSinceRead",
        "Contention",
        "DomainError",
        "InvalidInput",
        "InvalidTransition",
        "NotFound",
        "SequenceContention",
        "Unavailable",
    ),
    "ddbmodels.issues.model": ("PRIORITIES", "STATUSES", "TRANSITIONS", "CollectionItem", "IssueItem", "ProjectItem"),
}
_NAMES = {name: module for module, names in _EXPORTED.items() for name in names}
_loaded = False
_loading = threading.RLock()  # re-entrant: a table package's import may ask for the registry itself


def load() -> None:
    """Import every table package, registering its model (idempotent; ~60 ms the first time).

    Threads asking at once wait for the one loading, so none sees half a registry; a failed
    import leaves it not loaded, to be tried again (and raise again) on the next call.
    """
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        for name in TABLE_PACKAGES:
            importlib.import_module(f"ddbmodels.{name}")
        _loaded = True


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'ddbmodels' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


connection.set_table_loader(load)

__all__ = [
    "PRIORITIES",
    "STATUSES",
    "TRANSITIONS",
    "AlreadyExists",
    "ChangedSinceRead",
    "CollectionItem",
    "Contention",
    "DomainError",
    "DynamoSettings",
    "InvalidInput",
    "InvalidTransition",
    "IssueItem",
    "NotFound",
    "ProjectItem",
    "SequenceContention",
    "Unavailable",
    "attachments",
    "capacity",
    "comments",
    "configure",
    "connection",
    "counters",
    "current",
    "events",
    "hot_keys",
    "idempotency",
    "inbox",
    "issues",
    "jobs",
    "labels",
    "load",
    "milestones",
    "orders",
    "preferences",
    "registered",
    "scores",
    "table_name",
    "tables",
    "webhooks",
]
