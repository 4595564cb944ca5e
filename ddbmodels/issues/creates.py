"""Creating issues: numbered by the sort-key sequence, exactly once (a call's token; a form's or API key's record).

Creation claims the next number (``patterns.sequences``): a conditional put of the project's largest sort key + 1.
A labelled issue's ``labels`` entries are put in the create's transaction; with an idempotency key the key's record
is too (``ddbmodels.idempotency``), so a form or API call sent again is answered the issue it created
(``replayed``). Edits, status changes and tombstones are ``writes``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, cast

from pynamodb.models import Model

from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, KeyUsed, MilestoneNotOpen, NotFound
from ddbmodels.core.keys import utcnow
from ddbmodels.core.transactions import raw_put
from ddbmodels.idempotency import CreationRecord, check_fingerprint, check_unused, new_record, record_get
from ddbmodels.issues.guarded import milestone_check, refused_by_check
from ddbmodels.issues.model import CollectionItem, IssueItem, collection_key, issue_row
from ddbmodels.labels import LabelEntry, entries_for, registry_ensure
from ddbmodels.patterns.sequences import Claimed, put_next


@capacity.access_pattern("issues.create")
def issue_create(
    *,
    tenant: str,
    project_key: str,
    title: str,
    reporter: str,
    description: str = "",
    priority: str = "medium",
    assignee: str | None = None,
    labels: Iterable[str] = (),
    idempotency_key: str | None = None,
    milestone: str | None = None,
    fingerprint: str | None = None,
) -> Claimed[IssueItem]:
    """Query max SK (1 RCU, consistent) + conditional PutItem (1 WCU per KB, + 3–4 index entries); retried.

    With labels the put is a TransactWriteItems of the issue and its ``labels`` entries: 2 WCU per
    item ≤ 1 KB (2 labels: 2 × 3 = 6 WCU + the list-index entries). A label new to the team is
    registered first (``labels.registry_ensure``: 0.5 RCU the first time a process sees it, 1 WCU
    the first time the team uses it).

    Raises NotFound when the project's static item is missing (the same read proves it exists:
    the smallest possible maximum of a project collection is its static item at SK 0).

    Exactly once: the issue carries this call's random token, so a put refused on our own
    committed item (botocore retried after a lost answer) is recognised (+1 RCU on a refused
    put only). With ``idempotency_key`` the put is a transaction with the key's record
    (``ddbmodels.idempotency``): +2 WCU for the record and +1 for its ``by_tenant`` entry; a key
    that already created an issue returns that issue, ``replayed``, after 2 consistent GetItems
    (2 RCU), writing nothing.

    With ``milestone`` the put is a transaction with a ConditionCheck of that milestone (``guarded``): it must
    exist in the project and be open, else MilestoneNotOpen and nothing is written (a form resent after its
    milestone started closing is its replay: the key's record is read on that refusal, 1 RCU). Cost: 2 WCU per
    KB of the issue + 2 for the check (+ the record's 3 with a key): a ≤ 1 KB issue with a key, 7 WCU.

    ``fingerprint`` (the API's request fingerprint) is kept on the key's record; the same key with another
    fingerprint raises KeyReused on the replay path (the record read anyway), nothing written.
    """
    pk = collection_key(tenant, project_key)
    request = uuid.uuid4().hex
    kind = f"issue#{project_key}"

    def build(last: int | None) -> IssueItem:
        if last is None:
            raise NotFound("project not found", tenant=tenant, project_key=project_key)
        now = utcnow()
        issue = IssueItem(
            pk=pk,
            number=last + 1,
            title=title,
            description=description or None,
            status="open",
            priority=priority,
            assignee=assignee or None,
            reporter=reporter,
            labels=set(labels) or None,
            milestone=milestone or None,  # its ``milestone_status`` entry: + 1 WCU
            created_at=now,
            updated_at=now,
            request=request,
        )
        issue.set_list_keys()
        return issue

    def entries(item: IssueItem) -> list[dict[str, Any]]:
        # The version the put gives the issue (1), not the unsaved item's (none): a label's list, read from these
        # entries, shows each row at its issue's version, so a bulk edit from it is not refused as stale.
        first = replace(issue_row(item), version=int(item.version or 0) + 1)
        return [raw_put(LabelEntry.Meta.table_name, entry) for entry in entries_for(first).values()]

    def record(item: IssueItem) -> Model:
        assert idempotency_key is not None
        return new_record(
            tenant=tenant,
            kind=kind,
            key=idempotency_key,
            result=created_result(int(item.number), milestone),
            request=request,
            fingerprint=fingerprint,
        )

    checks = [milestone_check(tenant, project_key, milestone)] if milestone else []
    if labels:
        registry_ensure(tenant, labels)  # before any entry of a new label exists: offboarding finds it
    try:
        if idempotency_key:
            check_unused(tenant=tenant, kind=kind, key=idempotency_key)  # a form sent before the upgrade
        return put_next(
            # the whole collection: a query of IssueItem would filter the static item at SK 0 out
            cast("type[IssueItem]", CollectionItem),
            pk,
            build,
            token=("request", request),
            record=record if idempotency_key else None,
            extras=entries,
            checks=checks,
            check_failed=lambda index, reason: refused_by_check(checks[index], reason),
        )
    except KeyUsed:
        assert idempotency_key is not None
        return _replayed(pk, record_get(tenant=tenant, kind=kind, key=idempotency_key), request, fingerprint)
    except MilestoneNotOpen:
        # The same form sent again after its milestone started closing: its first send made the issue (R3-11).
        # Read the key's record (1 RCU, on this refusal only) rather than trust which reasons were reported.
        found = record_get(tenant=tenant, kind=kind, key=idempotency_key) if idempotency_key else None
        if found is None:
            raise
        return _replayed(pk, found, request, fingerprint)


def created_result(number: int, milestone: str | None) -> str:
    """A create's record's ``r``: the issue's number, and ``#<milestone id>`` when it was created in a milestone
    (the replay's answer names the milestone the issue was created in, whatever it is in now)."""
    return f"{number}#{milestone}" if milestone else str(number)


@dataclass(frozen=True)
class Replayed:
    """What a key already created: the issue as it is now (``replayed``), and the milestone it was created in."""

    claimed: Claimed[IssueItem]
    milestone: str | None


@capacity.access_pattern("issues.replay")
def issue_replay(
    *, tenant: str, project_key: str, idempotency_key: str, fingerprint: str | None = None
) -> Replayed | None:
    """GetItem the key's record, consistent — 1 RCU; when there is one, GetItem the issue it names, consistent —
    1 RCU per 4 KB. None (nothing more read) when the key created nothing: the caller may check and create.

    Read before anything else, so a request sent again is answered what it created whatever changed since (the
    API's creates, R22-3). KeyReused when the key was used with another ``fingerprint``. A deleted issue is
    returned too (its tombstone keeps what never changes: number, reporter, creation time).
    """
    record = record_get(tenant=tenant, kind=f"issue#{project_key}", key=idempotency_key)
    if record is None:
        return None
    claimed = _replayed(collection_key(tenant, project_key), record, "", fingerprint)
    milestone = record.result.partition("#")[2]
    return Replayed(claimed=claimed, milestone=milestone or None)


def _replayed(pk: str, record: CreationRecord | None, request: str, fingerprint: str | None) -> Claimed[IssueItem]:
    """The issue an idempotency record names (GetItem, consistent: 1 RCU); ``replayed`` unless it was this call's.

    KeyReused (before the read) when the record was written for another request's ``fingerprint``.
    """
    if record is None:  # expired between the refused write and this read: vanishingly rare, never silent
        raise AlreadyExists("this form was already submitted", pk=pk)
    check_fingerprint(record, fingerprint)
    number = int(record.result.partition("#")[0])
    issue = CollectionItem.get(pk, number, consistent_read=True)
    assert isinstance(issue, IssueItem)
    return Claimed(item=issue, number=number, attempts=1, replayed=record.request != request)
