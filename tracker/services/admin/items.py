"""Item browser writes: save an item as edited, delete one — only while it is as it was loaded.

Both are conditional writes (``ddbmodels.core.items``): by the version attribute when the table's
model has one, else by every attribute. Before that, the fingerprint the page was rendered with
is compared with the item just read, so a change made in between is caught without a write.
Either way a stale page raises ChangedSinceRead and nothing is written.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied

from ddbmodels.core import items
from ddbmodels.core.errors import ChangedSinceRead
from tracker.selectors.admin.items import LoadedItem
from tracker.selectors.admin.tables import base_name

# Base table → (may items be deleted here, why). Anything not listed may not be deleted.
DELETE_POLICY: dict[str, tuple[bool, str]] = {
    "issues": (
        False,
        "Issues are tombstoned, never deleted: their number must stay taken (and a project's "
        "static item holds its whole collection).",
    ),
    "jobs": (False, "Job items carry the fencing tokens of the maintenance jobs."),
    "counters": (False, "Counters hand out order numbers: deleting one would reuse numbers."),
    "scores": (False, "Scores and award records must stay consistent with the issues that earned them."),
    "attachments": (False, "Attachments are reconciled with their files by a job; detach them in the app."),
    "orders": (True, "Orders may be deleted (their number is not reused: the counter only goes up)."),
    "events": (True, "Events may be deleted one by one (old periods are archived and dropped whole)."),
}


def delete_policy(table: str) -> tuple[bool, str]:
    """(may items of ``table`` be deleted in the admin, why)."""
    return DELETE_POLICY.get(base_name(table), (False, "This table is not on the delete allow-list."))


def _check_unchanged(loaded: LoadedItem, fingerprint: str) -> None:
    if fingerprint != loaded.fingerprint:
        raise ChangedSinceRead("changed since the page was loaded", table=loaded.table)


def item_save(*, loaded: LoadedItem, fingerprint: str, new: dict[str, Any]) -> None:
    """PutItem ``new`` if the item is still the one the page showed — 1 WCU per KB.

    ChangedSinceRead when it changed; InvalidInput when DynamoDB refuses the item.
    """
    _check_unchanged(loaded, fingerprint)
    items.item_put_unchanged(loaded.table, new, loaded.item, version=loaded.version)


def item_delete(*, loaded: LoadedItem, fingerprint: str) -> None:
    """DeleteItem if its table allows it and it is still the one the page showed — 1 WCU per KB."""
    allowed, why = delete_policy(loaded.table)
    if not allowed:
        raise PermissionDenied(why)
    _check_unchanged(loaded, fingerprint)
    items.item_delete_unchanged(loaded.table, loaded.key, loaded.item, version=loaded.version)
