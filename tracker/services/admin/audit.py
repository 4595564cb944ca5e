"""The staff audit's writes: an entry before the change, its outcome after (``tracker.audit.models``).

``audit_begin`` commits the entry first, in a durable transaction of its own: it stays whatever
happens next. Called inside an open transaction (``transaction.atomic()``, a ModelAdmin's change
form) it raises RuntimeError and nothing is written or changed: the entry would roll back with the
caller while the DynamoDB write or the queued job stays. ``audited`` marks it done when the block
ends, or failed with the error when the block raises. A process killed in the block leaves it pending.

``audit_with_change`` is for a change to rows of this same database made in the caller's
transaction (a beat schedule saved in the admin): the entry commits with the change or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ddbmodels.core.keys import TENANT_SLUG_RE
from tracker import item_json
from tracker.audit.models import AuditEntry
from tracker.models import RetiredSlug, Tenant

SHOWN_MAX = 120  # characters of a value's DynamoDB JSON kept in the audit; a longer value by its size only

Action = AuditEntry.Action


def audit_begin(
    *, by: AbstractBaseUser, action: str, target: str, tenant: str = "", details: dict[str, Any]
) -> AuditEntry:
    """The pending entry of a change about to be made (one INSERT, committed before the change).

    RuntimeError, nothing written, when called inside an open transaction (see the module's docstring).
    """
    with transaction.atomic(durable=True):
        return _create(by=by, action=action, target=target, tenant=tenant, details=details)


def audit_with_change(
    *, by: AbstractBaseUser, action: str, target: str, tenant: str = "", details: dict[str, Any]
) -> AuditEntry:
    """The done entry of a change to this database's rows made in the caller's transaction (committed with it).

    The caller opens that transaction around this entry and its change (a ModelAdmin's form has one).
    """
    entry = _create(by=by, action=action, target=target, tenant=tenant, details=details)
    _finish(entry, AuditEntry.Outcome.DONE, "")
    return entry


def _create(*, by: AbstractBaseUser, action: str, target: str, tenant: str, details: dict[str, Any]) -> AuditEntry:
    return AuditEntry.objects.create(
        user_id=by.pk,
        username=by.get_username(),
        action=action,
        tenant=tenant,
        target=target[:300],
        details=details,
    )


@contextmanager
def audited(entry: AuditEntry) -> Iterator[AuditEntry]:
    """Marks ``entry`` done (its ``result`` as the block left it) or failed with the error the block raised."""
    try:
        yield entry
    except Exception as error:
        _finish(entry, AuditEntry.Outcome.FAILED, f"{type(error).__name__}: {error}")
        raise
    _finish(entry, AuditEntry.Outcome.DONE, entry.result)


def _finish(entry: AuditEntry, outcome: str, result: str) -> None:
    entry.outcome, entry.result, entry.finished_at = outcome, result[:500], timezone.now()
    entry.save(update_fields=["outcome", "result", "finished_at"])


# ----------------------------------------------------------------------------- raw items


def _shown(name: str, value: dict[str, Any] | None) -> tuple[Any, int | None]:
    """(the value's DynamoDB JSON, its size in characters) — None for an attribute that is not there."""
    if value is None:
        return None, None
    shown = item_json.to_json({name: value})[name]
    return shown, len(json.dumps(shown, ensure_ascii=False, sort_keys=True))


def item_changes(before: dict[str, Any], after: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Each changed attribute → its old and new value; names and sizes only for a long value or a delete.

    Attributes equal before and after are left out. ``after`` None (a delete): every attribute, by
    its size (``old_size``), so the audit keeps no copy of the deleted item.
    """
    changes: dict[str, dict[str, Any]] = {}
    for name in sorted(set(before) | set(after or {})):
        old = before.get(name)
        new = after.get(name) if after is not None else None
        if after is not None and old == new:
            continue
        (old_value, old_size), (new_value, new_size) = _shown(name, old), _shown(name, new)
        if after is None or max(old_size or 0, new_size or 0) > SHOWN_MAX:
            changes[name] = {"old_size": old_size, "new_size": new_size}
        else:
            changes[name] = {"old": old_value, "new": new_value}
    return changes


def item_tenant(key: dict[str, Any]) -> str:
    """The team a key belongs to: a key string's first ``#`` part when it is a team's slug; "" otherwise.

    One indexed read of the tenants (and of the retired slugs) per candidate: at most two.
    """
    for value in key.values():
        text = value.get("S") if isinstance(value, dict) else None
        candidate = text.split("#", 1)[0] if isinstance(text, str) else ""
        if not candidate or not TENANT_SLUG_RE.match(candidate):
            continue
        if Tenant.objects.filter(slug=candidate).exists() or RetiredSlug.objects.filter(slug=candidate).exists():
            return candidate
    return ""


def item_audit_begin(
    *, by: AbstractBaseUser, table: str, key: dict[str, Any], before: dict[str, Any], after: dict[str, Any] | None
) -> AuditEntry:
    """The pending entry of a raw PutItem (``after``) or DeleteItem (``after`` None) of the item ``key``."""
    shown_key = item_json.dumps(key, pretty=False)
    return audit_begin(
        by=by,
        action=Action.ITEM_CHANGE if after is not None else Action.ITEM_DELETE,
        target=f"{table} {shown_key}",
        tenant=item_tenant(key),
        details={"table": table, "key": item_json.to_json(key), "changes": item_changes(before, after)},
    )


# ----------------------------------------------------------------------------- offboarding


def _keyed(slug: str, target: str) -> bool:
    """``<table> <key as JSON>``: one of the key's string values is the team's key (``slug`` or ``<slug>#…``)."""
    try:
        key = json.loads(target.partition(" ")[2])
    except ValueError:
        return False
    values = [v.get("S") for v in key.values() if isinstance(v, dict)] if isinstance(key, dict) else []
    return any(isinstance(v, str) and (v == slug or v.startswith(f"{slug}#")) for v in values)


def team_item_entries(slug: str, *, apply: bool) -> int:
    """The audit's entries of raw edits of the team's items: how many (deleted when ``apply``).

    They hold changed values of the team's items (the key, short old and new values). One SQL query:
    the entries whose ``tenant`` is the team, and those with no team whose target's key (``<table>
    <key as JSON>``, parsed) has a value that is the team's (the slug, or ``<slug>#…``); never a word of
    the target. Job starts and the offboarding's own entry hold no content and stay.
    """
    item_actions = [Action.ITEM_CHANGE, Action.ITEM_DELETE]
    rows = AuditEntry.objects.filter(action__in=item_actions).filter(
        Q(tenant=slug) | Q(tenant="", target__contains=slug)
    )
    found = [pk for pk, tenant, target in rows.values_list("pk", "tenant", "target") if tenant or _keyed(slug, target)]
    if apply and found:
        AuditEntry.objects.filter(pk__in=found).delete()
    return len(found)
