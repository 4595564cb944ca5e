"""Item browser writes: save an item as edited, delete one — only while it is as it was loaded.

Both are conditional writes (``ddbmodels.core.items``): by the version attribute when the table's
model has one, else by every attribute. Before that, the fingerprint the page was rendered with
is compared with the item just read, so a change made in between is caught without a write.
Either way a stale page raises ChangedSinceRead and nothing is written.

Every edit and delete that is written is recorded in Django's admin log (``LogEntry``): who,
when, the table and key, and the item before and after (as the item browser's JSON), so the
admin's "Recent actions" and the log itself say what staff changed in DynamoDB.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.admin.models import CHANGE, DELETION, LogEntry
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied

from ddbmodels.core import items
from ddbmodels.core.errors import ChangedSinceRead
from tracker import item_json
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


def _log(by: AbstractBaseUser, loaded: LoadedItem, action: int, after: dict[str, Any] | None) -> LogEntry:
    """The admin log's record of a staff write: the table, the key, the item before and after."""
    key = item_json.dumps(loaded.key, pretty=False)
    record = {
        "table": loaded.table,
        "key": item_json.to_json(loaded.key),
        "before": item_json.to_json(loaded.item),
        "after": item_json.to_json(after) if after is not None else None,
    }
    verb = "Changed" if action == CHANGE else "Deleted"
    return LogEntry.objects.create(
        user_id=by.pk,
        content_type=None,  # a DynamoDB item, not a Django model
        object_id=f"{loaded.table} {key}",
        object_repr=f"{verb} {loaded.table} item {key}"[:200],
        action_flag=action,
        change_message=json.dumps(record, sort_keys=True, ensure_ascii=False),
    )


def item_save(*, loaded: LoadedItem, fingerprint: str, new: dict[str, Any], by: AbstractBaseUser) -> bool:
    """PutItem ``new`` if the item is still the one the page showed — 1 WCU per KB; logged as ``by``'s change.

    False, and nothing written or logged, when ``new`` is the item as loaded (its version is not
    bumped: the app's open edit forms stay current). ChangedSinceRead when it changed; InvalidInput
    when DynamoDB refuses the item.
    """
    _check_unchanged(loaded, fingerprint)
    if item_json.fingerprint(new) == loaded.fingerprint:
        return False
    items.item_put_unchanged(loaded.table, new, loaded.item, version=loaded.version)
    _log(by, loaded, CHANGE, new)
    return True


def item_delete(*, loaded: LoadedItem, fingerprint: str, by: AbstractBaseUser) -> None:
    """DeleteItem if its table allows it and it is still the one the page showed — 1 WCU per KB; logged."""
    allowed, why = delete_policy(loaded.table)
    if not allowed:
        raise PermissionDenied(why)
    _check_unchanged(loaded, fingerprint)
    items.item_delete_unchanged(loaded.table, loaded.key, loaded.item, version=loaded.version)
    _log(by, loaded, DELETION, None)
