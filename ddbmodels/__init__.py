"""DynamoDB models and access patterns of Tracker. Imports nothing from Django.

Importing the package installs the capacity meter's botocore hook (see ``capacity``).
"""

from ddbmodels import capacity
from ddbmodels.connection import DynamoSettings, configure, current, registered, table_name
from ddbmodels.errors import (
    AlreadyExists,
    DomainError,
    InvalidTransition,
    NotFound,
    SequenceContention,
    StaleWrite,
)
from ddbmodels.issues import (
    PRIORITIES,
    STATUSES,
    TRANSITIONS,
    CollectionItem,
    IssueItem,
    ProjectItem,
)

__all__ = [
    "PRIORITIES",
    "STATUSES",
    "TRANSITIONS",
    "AlreadyExists",
    "CollectionItem",
    "DomainError",
    "DynamoSettings",
    "InvalidTransition",
    "IssueItem",
    "NotFound",
    "ProjectItem",
    "SequenceContention",
    "StaleWrite",
    "capacity",
    "configure",
    "current",
    "registered",
    "table_name",
]
