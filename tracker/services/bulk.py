"""Bulk edit from a project's list: one change (status, assignee, priority, labels, milestone) to up to 50 issues.

The rules are the single edits': members and owners only, the workflow's moves (``TRANSITIONS``), a
newly chosen assignee must be a member or owner, a milestone must be an open one of the project.
Each issue is changed on the version its list row showed (``ddbmodels.issues.issue_change``), so an
issue somebody changed since the list was loaded is refused alone, the others go on.

The change's token is the form's idempotency key bound to the change (``change_token``: key + a hash
of what it asks): the same form sent again changes nothing twice and says "already done by this form"
for what it did; the same rendered bar sent back with another change (browser Back, another choice)
is a new change, checked on the rows' versions like any other. A label being renamed or deleted, or
gone, is refused whole as the issue form refuses it (the team's cached label catalogue,
``selectors.labels``: no request when cached).

A milestone chosen is checked by each row's own write (a ConditionCheck in its transaction): a close that
starts while the bar works through its rows refuses the rows not yet written ("milestone v1.2 was closed
meanwhile"; the later rows are refused without a request), so no open issue lands in a closed milestone.
A reopen ("open" or "in progress" of a resolved or closed issue) inside a milestone being closed is refused too
(its close could miss it): that row, and the later rows it would refuse the same (reopened inside that
milestone), without a request — not the rows in no milestone or in another one.

Cost: one BatchGetItem of the chosen issues (0.5 RCU each, descriptions not read; + one GetItem of the
milestone, consistent, 1 RCU, when one is chosen: the whole refusal before any write), then per changed issue
its update (1 WCU per KB + list-index and label entries; a move into a milestone is a TransactWriteItems with
the milestone's ConditionCheck: 2 WCU per KB of the issue + 2, so 4 WCU for a ≤ 1 KB issue) and its history
event(s); a refused one 1 WCU + 1 RCU (2 + 2 WCU when it was a move). One counts refresh is scheduled for the
project, whatever the number of rows. A row this form changed before (sent twice, or answered 503 after its write)
records its change again under the change's own key, which doubles nothing: its event puts refused (1 WCU each),
its webhook deliveries refused (1 WCU an endpoint), its notifications refused by their keys.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ddbmodels import issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition, MilestoneNotOpen
from ddbmodels.events import Kind
from ddbmodels.issues import UNSET, IssueItem, ProjectItem, Unset
from tracker.issue_terms import LABEL_RE, STATUS_LABELS, label_refusals
from tracker.models import Membership
from tracker.selectors.labels import label_catalogue
from tracker.selectors.milestones import milestone_names
from tracker.services import activity, leaderboard
from tracker.services.issues import assignable, schedule_counts
from tracker.services.permissions import require_role

MAX_ISSUES = 50

CHANGED = "changed"
REPLAYED = "replayed"
UNCHANGED = "unchanged"
REFUSED = "refused"
STALE = "changed since the list was loaded"


@dataclass(frozen=True)
class BulkChange:
    """What to do to every chosen issue; None / UNSET / empty: leave that alone (``assignee=None``: unassign,
    ``milestone=None``: take out of its milestone; else a milestone id)."""

    status: str | None = None
    assignee: str | None | Unset = UNSET
    priority: str | None = None
    labels_add: frozenset[str] = frozenset()
    labels_remove: frozenset[str] = frozenset()
    milestone: str | None | Unset = UNSET

    @property
    def empty(self) -> bool:
        return (
            self.status is None
            and self.assignee is UNSET
            and self.priority is None
            and not self.labels_add
            and not self.labels_remove
            and self.milestone is UNSET
        )


@dataclass(frozen=True)
class RowOutcome:
    """One chosen issue's outcome: ``CHANGED``, ``REPLAYED`` (already done by this form), ``UNCHANGED``, ``REFUSED``."""

    reference: str
    outcome: str
    why: str = ""


def bulk_change(
    *,
    membership: Membership,
    project: ProjectItem,
    versions: Mapping[int, int],
    change: BulkChange,
    token: str,
) -> list[RowOutcome]:
    """Apply ``change`` to the issues ``versions`` names (number → the version its list row showed), in number order.

    Refused whole (InvalidInput, nothing written): no issue, more than ``MAX_ISSUES``, nothing to
    change, a label name that is not one, an assignee who may not be assigned, a milestone not open (unless the
    form was sent before: its rows replay). PermissionDenied for
    viewers. Per issue, never raised: a move the workflow forbids, a change since the list was loaded,
    too many labels, a deleted or missing issue, a milestone that stopped being open (then the later rows
    too, unless this form already changed them: replayed), a reopen inside a milestone being closed (then the later
    reopens inside it too) — that row is refused with why.
    """
    require_role(membership, "member")
    if not versions:
        raise InvalidInput("Choose at least one issue.")
    if len(versions) > MAX_ISSUES:
        raise InvalidInput(f"At most {MAX_ISSUES} issues at a time; {len(versions)} were chosen.")
    if change.empty:
        raise InvalidInput("Choose what to change.")
    _check_labels(change.labels_add, membership=membership)
    if isinstance(change.assignee, str) and not assignable(membership, change.assignee):
        raise InvalidInput(f"{change.assignee} cannot be assigned: only members and owners can.")
    names = _milestone_names(project, change.milestone)
    if not token:
        raise InvalidInput("This form has no key; reload the page and try again.")
    token = change_token(token, change)

    found = issues.issues_for_change(tenant=project.tenant, project_key=project.project_key, numbers=versions)
    _check_milestone(project, change.milestone, found, token)
    actor = membership.user.get_username()
    outcomes: list[RowOutcome] = []
    counts_moved = False
    not_open = ""  # the chosen milestone stopped being open: why every later row that is not this form's is refused
    no_reopen: dict[str, str] = {}  # milestone being closed → why a reopen of a row staying in it is refused (R4-2)
    for number in sorted(versions):
        reference = f"{project.project_key}-{number}"
        issue = found.get(number)
        if issue is None:
            outcomes.append(RowOutcome(reference, REFUSED, "there is no such issue"))
            continue
        if issue.bulk_token != token and int(issue.version or 0) != versions[number]:
            why = "it was deleted" if issue.is_tombstone else STALE
            outcomes.append(RowOutcome(reference, REFUSED, why))  # refused before any write
            continue
        if not_open and issue.bulk_token != token:
            outcomes.append(RowOutcome(reference, REFUSED, not_open))  # no write: it would be refused the same
            continue
        refused_here = no_reopen.get(_reopens_in(issue, change), "") if issue.bulk_token != token else ""
        if refused_here:
            outcomes.append(RowOutcome(reference, REFUSED, refused_here))  # no write: it would be refused the same
            continue
        try:
            outcome = _change_one(issue, change, token=token, actor=actor, names=names)
        except MilestoneNotOpen as refused:
            if refused.milestone == change.milestone:  # the milestone the form chose: every later row's refusal
                not_open = _not_open(refused, names)
                outcome = RowOutcome(reference, REFUSED, not_open)
            else:  # a reopen inside the milestone this row stays in, being closed: this row's, and its neighbours'
                no_reopen[refused.milestone] = str(refused)
                outcome = RowOutcome(reference, REFUSED, str(refused))
        moves = change.status is not None or change.milestone is not UNSET  # the tabs' or a milestone's counts
        counts_moved = counts_moved or (outcome.outcome in (CHANGED, REPLAYED) and moves)  # a replay: as recorded
        outcomes.append(RowOutcome(reference, outcome.outcome, outcome.why))
    if counts_moved:
        schedule_counts(project)  # once for the project: the tabs' and the milestones' counts
    return outcomes


def change_token(key: str, change: BulkChange) -> str:
    """The token ``issue_change`` stores: the form's key and a hash of the change, so that only the same
    submission replays (a different change under the same key is checked on the versions, never dropped)."""
    assignee = "-" if change.assignee is UNSET else change.assignee or ""
    milestone = "-" if change.milestone is UNSET else change.milestone or ""
    parts = [
        change.status or "",
        assignee,
        change.priority or "",
        ",".join(sorted(change.labels_add)),
        ",".join(sorted(change.labels_remove)),
        milestone,
    ]
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]
    return f"{key}:{digest}"


def _check_labels(labels: frozenset[str], *, membership: Membership) -> None:
    """Refused whole: a label name that is not one, or one the team is renaming or deleting or has (the catalogue)."""
    for label in sorted(labels):
        if len(label) > issues.LABEL_MAX or not LABEL_RE.match(label):
            raise InvalidInput(
                f"Label “{label}”: up to {issues.LABEL_MAX} letters, digits, dots, dashes or underscores."
            )
    if labels:
        refused = label_refusals(label_catalogue(tenant=membership.tenant))
        for label in sorted(labels):
            if label in refused:
                raise InvalidInput(refused[label])


def _milestone_names(project: ProjectItem, milestone: str | None | Unset) -> dict[str, str]:
    """The project's milestone names (id → name, the cached list: no request when cached) for the history and the
    refusals."""
    if milestone is UNSET:
        return {}
    return milestone_names(tenant=project.tenant, project_key=project.project_key)


def _check_milestone(
    project: ProjectItem, milestone: str | None | Unset, found: Mapping[int, IssueItem], token: str
) -> None:
    """Refused whole, before any write, when the chosen milestone is not an open one of this project (one GetItem,
    consistent: 1 RCU) — unless a chosen row already holds this form's token: the form was sent before and its
    rows answer their replay (R3-11); the others are refused by their own write's check. That check
    (MilestoneNotOpen), not this read, is what keeps a close that starts later from missing a row."""
    if milestone is UNSET or milestone is None:
        return
    target = ddb_milestones.milestone_get(
        tenant=project.tenant, project_key=project.project_key, milestone_id=milestone, consistent=True
    )
    if (target is None or not target.is_open) and not any(issue.bulk_token == token for issue in found.values()):
        raise InvalidInput("That milestone is closed or no longer exists; choose an open one.")


def _not_open(refused: MilestoneNotOpen, names: dict[str, str]) -> str:
    """A row's refusal when its milestone stopped being open: "milestone v1.2 was closed meanwhile"."""
    name = refused.name or names.get(refused.milestone, refused.milestone)
    if refused.state == "closing":
        return f"milestone {name} is being closed"
    if refused.state == "closed":
        return f"milestone {name} was closed meanwhile"
    return f"milestone {name} no longer exists"


def _reopens_in(issue: IssueItem, change: BulkChange) -> str:
    """The milestone ``change`` reopens ``issue`` inside (it stays in it: the form names no milestone), or ""."""
    reopens = issue.status in ("resolved", "closed") and change.status in ("open", "in_progress")
    return str(issue.milestone or "") if reopens and change.milestone is UNSET else ""


def _change_one(issue: IssueItem, change: BulkChange, *, token: str, actor: str, names: dict[str, str]) -> RowOutcome:
    try:
        done = issues.issue_change(
            issue,
            token=token,
            status=change.status,
            assignee=change.assignee,
            priority=change.priority,
            labels_add=change.labels_add,
            labels_remove=change.labels_remove,
            milestone=change.milestone,
        )
    except InvalidTransition as refused:
        if refused.context.get("current") == "deleted":
            return RowOutcome(issue.reference, REFUSED, "it was deleted")
        before, to = STATUS_LABELS[issue.status].lower(), STATUS_LABELS.get(change.status or "", change.status)
        return RowOutcome(issue.reference, REFUSED, f"{before} → {str(to).lower()} is not a move")
    except MilestoneNotOpen:
        raise  # bulk_change refuses this row and the later ones it concerns too
    except InvalidInput as refused:
        return RowOutcome(issue.reference, REFUSED, _why_input(refused))
    except ChangedSinceRead:
        return RowOutcome(issue.reference, REFUSED, STALE)
    if done.to_record:  # this send's change (its answer may have been lost), or a replay's, recorded again
        _record(done, actor=actor, names=names)
    if done.replayed:
        return RowOutcome(issue.reference, REPLAYED)
    if not done.changed:
        return RowOutcome(issue.reference, UNCHANGED)
    return RowOutcome(issue.reference, CHANGED)


def _why_input(refused: InvalidInput) -> str:
    if "labels" in refused.context:
        return f"it would have more than {issues.LABELS_MAX} labels"
    return str(refused)


def _record(done: issues.Change, *, actor: str, names: dict[str, str]) -> None:
    """The history of one changed issue, as the single edits write it: a status event, an edit event, or both.

    Each under the change's own key (``Change.event_key``: its time and the form's token), so the same form's
    replay records it again without doubling it: its first send may have stopped before recording (a lost answer,
    then a 503). A replay costs the refused event puts (1 WCU each) and webhook deliveries (1 WCU an endpoint),
    and a search update and counts refresh queued.
    """
    issue, before, after = done.issue, done.before, done.after
    if "status" in after:
        activity.record(
            issue,
            kind=Kind.ISSUE_STATUS,
            actor=actor,
            data={"from": before["status"], "to": after["status"]},
            key=done.event_key(Kind.ISSUE_STATUS),
        )
        leaderboard.issue_status_changed(issue, before=before["status"])  # never raises; idempotent per issue
    data: dict[str, Any] = {}
    changed = {name: [before[name], after[name]] for name in ("priority", "assignee") if name in after}
    if "milestone" in after:  # by name, as they were when it moved (as the issue page's milestone form records)
        was, now = before["milestone"], after["milestone"]
        changed["milestone"] = [names.get(was or "", was), names.get(now or "", now)]
    if changed:
        data["changed"] = changed
    if "labels" in after:
        labels_before, labels_after = set(before["labels"] or ()), set(after["labels"] or ())
        data["labels"] = {
            "added": sorted(labels_after - labels_before),
            "removed": sorted(labels_before - labels_after),
        }
    if data:
        data.setdefault("changed", {})
        key = done.event_key(Kind.ISSUE_EDITED, step=1)  # after the status event, as the issue page records them
        activity.record(issue, kind=Kind.ISSUE_EDITED, actor=actor, data=data, key=key)
