"""DynamoDB models and access patterns of Tracker. Imports nothing from Django.

Three layers, imports going one way (``docs/architecture.md``):

- ``ddbmodels.core`` — connection and table registry, the error tree, the capacity meter,
  retry, key helpers, table lifecycle;
- ``ddbmodels.patterns`` — the access patterns as generic functions over a model (sort-key
  sequence, counters, sparse index, sharded index, leaderboard, pagination, distinct keys,
  time-series tables); they import ``core`` only;
- one package per table (``issues``, ``orders``, ``counters``, ``attachments``, ``comments``, ``scores``,
  ``events``, ``jobs``, ``idempotency``), each ``model`` + ``writes`` + ``reads`` on top of the
  patterns; ``tenants`` works across them (is anything stored for a tenant, offboarding).

Importing the package registers every table's model (``core.tables.create_all`` creates them)
and installs the capacity meter's botocore hook.
"""

from ddbmodels import attachments, comments, counters, events, idempotency, inbox, issues, jobs, orders, scores, terms
from ddbmodels.core import capacity, connection, hot_keys, tables
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
from ddbmodels.issues.model import PRIORITIES, STATUSES, TRANSITIONS, CollectionItem, IssueItem, ProjectItem

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
    "orders",
    "registered",
    "scores",
    "table_name",
    "tables",
    "terms",
]
