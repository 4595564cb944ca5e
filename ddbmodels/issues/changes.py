"""One issue's change by a form that may be sent twice: bulk edits, label renames, milestone moves, side forms.

``issue_change`` is the one write: an UpdateItem of only the fields that change, conditioned on the
version the caller read (PynamoDB's ``VersionAttribute``), on the issue not being deleted and, for a
status change, on the status it leaves; it also stores the form's token in ``bk``
(``IssueItem.bulk_token``, not projected). Then the list-index keys and the ``labels`` entries
follow as in every edit (``writes.update_with_entries``).

Exactly once: the update also stores what it changes (``bc``, ``change_record``: its time, a token of the
call, the fields before and after). A refused update reads the item (consistent GetItem, 1 RCU, on that
path only). This call's own record there means DynamoDB did this call's update and its answer was lost
(botocore's resend was refused by it): the change is this call's (``changed``), its list and label entries
are made right, and the caller records it. The form's token with another call's record means this form
was applied already (the person pressed the button twice, or the first send was answered 503 after its
write): nothing is written again and the outcome says so (``Change.replayed``), carrying the stored
change, so the caller records it again under the change's own key (``Change.event_key``: its time and the
form's token), which doubles nothing (the first send may have stopped before recording it). Another token
or none: ``ChangedSinceRead``. ``bk`` holds the *last* token only: form A applied, then edit B, then A sent
again is "changed since" — true, and still not applied twice. A token already on the item as read is
``replayed`` without any request.

Fields are python attribute names of ``IssueItem``; ``milestone`` is passed through to the
attribute of that name (``ddbmodels.milestones``' id, key of the ``milestone_status`` index).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pynamodb.expressions.update import Action

from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition
from ddbmodels.core.keys import parse_time_key, time_key, utcnow
from ddbmodels.events import creation_key
from ddbmodels.issues.bulk import issue_labels_reconcile
from ddbmodels.issues.model import LABELS_MAX, PRIORITIES, TRANSITIONS, CollectionItem, IssueItem, collection_key
from ddbmodels.issues.writes import (  # UNSET: the edit form's too
    UNSET,
    IssueChangedSinceRead,
    Unset,
    update_with_entries,
)

BATCH_MAX = 100  # BatchGetItem's limit


@dataclass(frozen=True)
class Change:
    """What ``issue_change`` did: ``after`` the changed fields' new values, ``before`` their old ones.

    Nothing changed and nothing was written when ``after`` is empty; ``replayed`` says the same form
    (its token) had already applied its change (nothing written now): ``before``/``after`` are then that
    change, as stored with it (empty for one stored before ``bc`` was), for the caller to record again.
    ``at`` is the change's time, ``token`` the form's: with them ``event_key`` is the same in every call.
    """

    issue: IssueItem
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False
    at: datetime | None = None
    token: str = ""

    @property
    def changed(self) -> bool:
        """This call changed the issue (its answer may have been lost: DynamoDB did it all the same)."""
        return bool(self.after) and not self.replayed

    @property
    def to_record(self) -> bool:
        """A change to record: this call's, or a replay's (recording it again under ``event_key`` doubles nothing)."""
        return bool(self.after) and self.at is not None

    def event_key(self, kind: str, *, step: int = 0) -> str | None:
        """The sort key of this change's ``kind`` event (``events.creation_key``: the change's time, ``step`` ms later,
        then a hash of the form's token, the issue and ``kind``): the first send and every replay record the same
        event, once. ``step``: the event's place among the change's events (a status event, then an edit event)."""
        if self.at is None or not self.token:
            return None
        issue = self.issue
        when = self.at + timedelta(milliseconds=step)
        return creation_key(when, f"{self.token}#{issue.tenant}#{issue.project_key}#{int(issue.number)}#{kind}")


def change_record(at: datetime, call: str, before: dict[str, Any], after: dict[str, Any]) -> str:
    """``bc``: compact JSON of a change — ``t`` its time (a time key: ms), ``c`` the writing call's token, ``b``/``a``
    the fields before and after (labels as sorted lists): ≈ 80 bytes for one field, ≈ 125 for a status and labels."""

    def plain(values: dict[str, Any]) -> dict[str, Any]:
        return {k: sorted(v) if isinstance(v, set | frozenset) else v for k, v in values.items()}

    record = {"t": time_key(at), "c": call, "b": plain(before), "a": plain(after)}
    return json.dumps(record, separators=(",", ":"), sort_keys=True)


def _stored_change(issue: IssueItem, token: str, *, replayed: bool) -> Change:
    """The change ``bc`` holds (the one of ``bk``'s form), or a bare replay when there is none (written before it)."""
    try:
        record = json.loads(issue.bulk_change or "")
        at = parse_time_key(record["t"])
        before, after = dict(record["b"]), dict(record["a"])
    except (ValueError, KeyError, TypeError):
        return Change(issue, replayed=True)
    for values in (before, after):
        if values.get("labels") is not None:
            values["labels"] = set(values["labels"])
    return Change(issue, before, after, replayed=replayed, at=at, token=token)


def _wanted(
    issue: IssueItem,
    *,
    status: str | None,
    assignee: str | None | Unset,
    priority: str | None,
    labels_add: Iterable[str],
    labels_remove: Iterable[str],
    milestone: str | None | Unset,
) -> dict[str, Any]:
    """The fields that differ from the issue as read, with their new values (None: remove the attribute)."""
    wanted: dict[str, Any] = {}
    if status is not None and status != issue.status:
        if status not in TRANSITIONS.get(issue.status, frozenset()):
            raise InvalidTransition(f"cannot move from {issue.status} to {status}", current=issue.status, to=status)
        wanted["status"] = status
    if priority is not None and priority != issue.priority:
        if priority not in PRIORITIES:
            raise InvalidInput(f"no priority {priority}", priority=priority)
        wanted["priority"] = priority
    if assignee is not UNSET and (assignee or None) != (issue.assignee or None):
        wanted["assignee"] = assignee or None
    labels_before = set(issue.labels or ())
    labels_after = (labels_before - set(labels_remove)) | set(labels_add)
    if labels_after != labels_before:
        if len(labels_after) > LABELS_MAX:
            raise InvalidInput(f"at most {LABELS_MAX} labels an issue", labels=len(labels_after))
        wanted["labels"] = labels_after or None
    if milestone is not UNSET and (milestone or None) != (getattr(issue, "milestone", None) or None):
        wanted["milestone"] = milestone or None
    return wanted


@capacity.access_pattern("issues.change")
def issue_change(
    issue: IssueItem,
    *,
    token: str,
    status: str | None = None,
    assignee: str | None | Unset = UNSET,
    priority: str | None = None,
    labels_add: Iterable[str] = (),
    labels_remove: Iterable[str] = (),
    milestone: str | None | Unset = UNSET,
) -> Change:
    """UpdateItem of the fields that change + ``bk`` if version matches (+ status left, not deleted) — 1 WCU per KB.

    Plus the list-index entries (1 WCU an index rewritten, 2 an index key moved) and the ``labels``
    entries that change (1 WCU each, guarded by the new version). ``bc`` (the change, 80–125 bytes) is in
    the same update: an issue it takes past a KB boundary costs 1 WCU more on each write. Refused: + 1 RCU
    (a consistent GetItem); when that finds this call's own update (its answer lost), + the label entries'
    repair (``issue_labels_reconcile``: 1 RCU + 1 RCU a label key, + 1 WCU an entry written).
    Nothing to change, or this token already on the issue as read: no request at all.

    Raises InvalidTransition for a move the workflow does not allow or a deleted issue, InvalidInput for
    an unknown priority or more than ``LABELS_MAX`` labels (nothing written), ChangedSinceRead when the
    issue changed since it was read and this token is not on it.
    """
    if not token:
        raise ValueError("issue_change needs the form's token")
    if issue.bulk_token == token:
        return _stored_change(issue, token, replayed=True)
    if issue.is_tombstone:
        raise InvalidTransition("the issue was deleted", current="deleted")
    wanted = _wanted(
        issue,
        status=status,
        assignee=assignee,
        priority=priority,
        labels_add=labels_add,
        labels_remove=labels_remove,
        milestone=milestone,
    )
    if not wanted:
        return Change(issue)
    before = {name: getattr(issue, name, None) for name in wanted}
    now, call = utcnow(), secrets.token_hex(4)
    at = parse_time_key(time_key(now))  # the change's time as stored (ms): its event keys are the same in replays
    record = change_record(at, call, before, wanted)
    local: dict[str, Any] = {**wanted, "updated_at": now, "bulk_token": token, "bulk_change": record}
    actions: list[Action] = [
        getattr(IssueItem, name).set(value) if value is not None else getattr(IssueItem, name).remove()
        for name, value in local.items()
    ]
    condition = IssueItem.deleted_at.does_not_exist()
    if "status" in wanted:
        condition &= IssueItem.status == issue.status
    try:
        updated = update_with_entries(issue, actions, condition, local)
    except ChangedSinceRead as refused:
        stored = refused.stored if isinstance(refused, IssueChangedSinceRead) else _stored(issue)  # read once
        if stored is None or stored.bulk_token != token:
            raise
        if stored.bulk_change != record:
            return _stored_change(stored, token, replayed=True)  # an earlier send of this form did it
        # This call's own update: DynamoDB did it, its answer was lost and botocore's resend was refused by it.
        # The label entries it would have moved next are made what the issue says.
        if issue.labels or stored.labels:
            issue_labels_reconcile(
                tenant=stored.tenant,
                project_key=stored.project_key,
                number=int(stored.number),
                labels_also=set(issue.labels or ()),
            )
        return Change(stored, before, wanted, at=at, token=token)
    return Change(updated, before, wanted, at=at, token=token)


def _stored(issue: IssueItem) -> IssueItem | None:
    """GetItem of the issue, consistent — 1 RCU."""
    try:
        item = CollectionItem.get(issue.pk, issue.number, consistent_read=True)
    except CollectionItem.DoesNotExist:
        return None
    return item if isinstance(item, IssueItem) else None


@capacity.access_pattern("issues.get_for_change")
def issues_for_change(*, tenant: str, project_key: str, numbers: Iterable[int]) -> dict[int, IssueItem]:
    """BatchGetItem of up to 100 issues of a project, without their descriptions — 0.5 RCU per 4 KB of each.

    What ``issue_change`` needs of each: the list row, the version, the last token, the milestone
    (tombstones included: ``is_tombstone``; missing numbers are absent). Eventually consistent: a
    stale copy is refused by the version condition, never written over.
    """
    keys = [(collection_key(tenant, project_key), int(number)) for number in dict.fromkeys(numbers)]
    if len(keys) > BATCH_MAX:
        raise ValueError(f"at most {BATCH_MAX} issues a BatchGetItem")
    if not keys:
        return {}
    names = [attribute.attr_name for attribute in IssueItem.get_attributes().values() if attribute.attr_name != "ds"]
    return {
        int(item.number): item
        for item in CollectionItem.batch_get(keys, attributes_to_get=names)
        if isinstance(item, IssueItem)
    }
