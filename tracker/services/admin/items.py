"""Item browser writes: save an item as edited, delete one — only while it is as it was loaded.

Both are conditional writes (``ddbmodels.core.items``): by the version attribute when the table's
model has one, else by every attribute. Before that, the fingerprint the page was rendered with
is compared with the item just read, so a change made in between is caught without a write.
Either way a stale page raises ChangedSinceRead and nothing is written.

Both need the ``audit.edit_raw_items`` permission (superusers have it; ``tracker.change_tenant``
does not give it). Every edit and delete is in the staff audit (``tracker.audit``), written
before the write: who, when, the table and key, and the attributes changed (old and new values,
or names and sizes) — not a copy of the item. It is then marked done, or failed with the error.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied

from ddbmodels.core import items
from ddbmodels.core.errors import ChangedSinceRead
from tracker import item_json
from tracker.selectors.admin.items import LoadedItem
from tracker.selectors.admin.tables import base_name
from tracker.services.admin.audit import audited, item_audit_begin
from tracker.services.permissions import NO_RAW_EDITS, staff_can_edit_raw_items

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


def _as_written(loaded: LoadedItem, new: dict[str, Any]) -> dict[str, Any]:
    """``new`` as ``items.item_put_unchanged`` writes it: with the loaded version + 1 when the table has one."""
    if loaded.version and loaded.version in loaded.item:
        return {**new, loaded.version: {"N": str(int(Decimal(loaded.item[loaded.version]["N"])) + 1)}}
    return new


def _require_permission(by: AbstractBaseUser) -> None:
    if not staff_can_edit_raw_items(by):
        raise PermissionDenied(NO_RAW_EDITS)


def item_save(*, loaded: LoadedItem, fingerprint: str, new: dict[str, Any], by: AbstractBaseUser) -> bool:
    """PutItem ``new`` if the item is still the one the page showed — 1 WCU per KB; audited as ``by``'s change.

    PermissionDenied without audit.edit_raw_items. False, and nothing written or audited, when ``new``
    is the item as loaded (its version is not bumped: the app's open edit forms stay current).
    ChangedSinceRead when it changed; InvalidInput when DynamoDB refuses the item (the entry: failed).
    """
    _require_permission(by)
    _check_unchanged(loaded, fingerprint)
    if item_json.fingerprint(new) == loaded.fingerprint:
        return False
    entry = item_audit_begin(
        by=by, table=loaded.table, key=loaded.key, before=loaded.item, after=_as_written(loaded, new)
    )
    with audited(entry):
        items.item_put_unchanged(loaded.table, new, loaded.item, version=loaded.version)
    return True


def item_delete(*, loaded: LoadedItem, fingerprint: str, by: AbstractBaseUser) -> None:
    """DeleteItem if its table allows it and it is still the one the page showed — 1 WCU per KB; audited."""
    _require_permission(by)
    allowed, why = delete_policy(loaded.table)
    if not allowed:
        raise PermissionDenied(why)
    _check_unchanged(loaded, fingerprint)
    entry = item_audit_begin(by=by, table=loaded.table, key=loaded.key, before=loaded.item, after=None)
    with audited(entry):
        items.item_delete_unchanged(loaded.table, loaded.key, loaded.item, version=loaded.version)
