"""One issue's change by a form that may be sent twice: bulk edits, label renames, milestone moves, side forms.

``issue_change`` is the one write: an UpdateItem of only the fields that change, conditioned on the
version the caller read (PynamoDB's ``VersionAttribute``), on the issue not being deleted and, for a
status change, on the status it leaves; it also stores the form's token in ``bk``
(``IssueItem.bulk_token``, not projected). Then the list-index keys and the ``labels`` entries
follow as in every edit (``writes.update_with_entries``).

Exactly once: a refused update reads the item (``exactly_once.holds_token``, consistent GetItem,
1 RCU, on that path only). Its own token there means this form was applied already (the first
send's answer was lost, or the person pressed the button twice): nothing is written again and the
outcome says so (``Change.replayed``). Another token or none: ``ChangedSinceRead``. ``bk`` holds the
*last* token only: form A applied, then edit B, then A sent again is "changed since" — true, and
still not applied twice. A token already on the item as read is ``replayed`` without any request.

Fields are python attribute names of ``IssueItem``; ``milestone`` is passed through to the
attribute of that name (``ddbmodels.milestones``' id, key of the ``milestone_status`` index).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pynamodb.expressions.update import Action

from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition
from ddbmodels.core.exactly_once import holds_token
from ddbmodels.core.keys import utcnow
from ddbmodels.issues.model import LABELS_MAX, PRIORITIES, TRANSITIONS, CollectionItem, IssueItem, collection_key
from ddbmodels.issues.writes import UNSET, Unset, update_with_entries  # UNSET: the edit form's too

BATCH_MAX = 100  # BatchGetItem's limit


@dataclass(frozen=True)
class Change:
    """What ``issue_change`` did: ``after`` the changed fields' new values, ``before`` their old ones.

    Nothing changed and nothing was written when ``after`` is empty; ``replayed`` says the same form
    (its token) had already applied its change (nothing written now either).
    """

    issue: IssueItem
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.after)


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
    entries that change (1 WCU each, guarded by the new version). Refused: + 1 RCU (``holds_token``).
    Nothing to change, or this token already on the issue as read: no request at all.

    Raises InvalidTransition for a move the workflow does not allow or a deleted issue, InvalidInput for
    an unknown priority or more than ``LABELS_MAX`` labels (nothing written), ChangedSinceRead when the
    issue changed since it was read and this token is not on it.
    """
    if not token:
        raise ValueError("issue_change needs the form's token")
    if issue.bulk_token == token:
        return Change(issue, replayed=True)
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
    local: dict[str, Any] = {**wanted, "updated_at": utcnow(), "bulk_token": token}
    actions: list[Action] = [
        getattr(IssueItem, name).set(value) if value is not None else getattr(IssueItem, name).remove()
        for name, value in local.items()
    ]
    condition = IssueItem.deleted_at.does_not_exist()
    if "status" in wanted:
        condition &= IssueItem.status == issue.status
    try:
        updated = update_with_entries(issue, actions, condition, local)
    except ChangedSinceRead:
        if holds_token(issue, ("bulk_token", token)):
            return Change(issue, replayed=True)
        raise
    return Change(updated, before, wanted)


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
