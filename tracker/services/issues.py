"""Issue writes: members create and edit, owners delete (tombstone); counts refresh async."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache

from ddbmodels import events, issues
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition, NotFound
from ddbmodels.events import Kind
from ddbmodels.issues import UNSET, IssueItem, ProjectItem, Unset
from ddbmodels.patterns.sequences import Claimed
from tracker import enqueue, text_diff
from tracker.models import Membership, Role
from tracker.selectors.milestones import milestone_names
from tracker.services import activity, deleting, leaderboard
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)
COUNTS_DEBOUNCE_SECONDS = 2


def issue_create(*, membership: Membership, project: ProjectItem, **fields: Any) -> IssueItem:
    """Take the project's next number and write the issue (members and owners).

    ``fields`` are ``issue_create_claim``'s (title, description, priority, assignee, labels,
    idempotency_key). The same ``idempotency_key`` again returns the issue it created and writes
    nothing (``issue_create_claim`` says which happened).
    """
    return issue_create_claim(membership=membership, project=project, **fields).item


def issue_create_claim(
    *,
    membership: Membership,
    project: ProjectItem,
    title: str,
    description: str = "",
    priority: str = "medium",
    assignee: str | None = None,
    labels: Iterable[str] = (),
    idempotency_key: str | None = None,
    milestone: str | None = None,
    fingerprint: str | None = None,
) -> Claimed[IssueItem]:
    """``issue_create``, returning the claim: ``replayed`` when the key had already created the issue.

    ``fingerprint`` (the API's, of the whole request) is kept with the key: the key sent again with another
    request raises KeyReused and writes nothing (the pages pass none: their keys are per rendered form).

    ``milestone``: the id of an open milestone of the project, checked in the create's own transaction
    (MilestoneNotOpen, nothing written, when it is not one or is being closed; the same key again is its replay).

    A project an import is writing (``tracker.imports.projects``) takes no new issues: InvalidTransition.
    That is read from the project itself, consistently (GetItem, 1 RCU), not from the page's cached
    copy, which may be a moment old either way: an import's puts would overwrite an issue created
    in its project meanwhile.
    """
    require_role(membership, "member")
    title = issues.one_line(title)  # titles hold one line (e-mail subjects, CSV rows)
    current = issues.project_get(tenant=project.tenant, key=project.project_key, consistent=True)
    if current is None:
        raise NotFound("project not found", tenant=project.tenant, project_key=project.project_key)
    if current.importing:
        raise InvalidTransition("project is being imported", current="importing", project=project.project_key)
    # A milestone is checked by the write itself (ConditionCheck in its transaction, ``ddbmodels.issues.guarded``):
    # no read here, so a form sent again after its milestone started closing is answered its replay (R3-11).
    claimed = issues.issue_create(
        tenant=project.tenant,
        project_key=project.project_key,
        title=title,
        description=description,
        priority=priority,
        assignee=assignee,
        labels=labels,
        reporter=membership.user.get_username(),
        idempotency_key=idempotency_key,
        milestone=milestone or None,
        fingerprint=fingerprint,
    )
    # A replay of the API's request (its fingerprint kept: the same request) records the title it asked for.
    record_created(claimed.item, title=title if claimed.replayed and fingerprint else None, replay=claimed.replayed)
    return claimed


def record_created(issue: IssueItem, *, title: str | None = None, replay: bool = False) -> None:
    """Record a new issue (its counts, its ``issue.created`` event and what follows it), as the create or its replay.

    A replay records it again: its first request may have written the issue and stopped before recording it (a
    lost answer, then a 503, R22-1). The event's key is the issue's own (``events.creation_key``: its creation time
    and request token), so recording twice writes one event, one notification per person, one webhook delivery
    per endpoint. A replay costs what recording costs, less the event's put (1 WCU refused instead of 2) and the
    notifications and deliveries already there (refused). A deleted issue (a tombstone) is not recorded again.

    ``title``: what the request asked for (a replay of an API request, the same request by its fingerprint), so a
    late recording tells the creation, not the issue as edited since (R2-4); None: the issue's own (the create's
    item is what it wrote; a page form's replay carries no fingerprint, and records the title as it is now). The
    webhook's payload is the issue as it is when the delivery is made (``activity.record``), as for every change.

    ``replay``: an issue created before the creation events had their key (``events.keyed_by_creation``) is not
    recorded again: its first request recorded it under another key, which a second recording would double (R2-3).
    """
    if issue.is_tombstone or (replay and not events.keyed_by_creation(issue.created_at)):
        return
    schedule_counts(issue)
    key = events.creation_key(issue.created_at, issue.request or issue.pk + f"#{int(issue.number)}")
    told = issue.title if title is None else issues.one_line(title)
    activity.record(issue, kind=Kind.ISSUE_CREATED, actor=issue.reporter, data={"title": told}, key=key)


def _check_version(issue: IssueItem, expected_version: int, *, wanted: str | None = None) -> None:
    # The form carries the version the editor loaded; a newer one means somebody saved since.
    # The UpdateItem below is conditioned on the same version, so a save racing this check
    # is refused by DynamoDB too. The error says the status it is in now (read consistently).
    if int(issue.version or 0) != expected_version:
        raise ChangedSinceRead("changed since it was loaded", current=issue.status, wanted=wanted, number=issue.number)


def issue_update(
    *,
    membership: Membership,
    issue: IssueItem,
    expected_version: int,
    title: str,
    description: str,
    priority: str,
    assignee: str | None,
    labels: Iterable[str],
    milestone: str | None | Unset = UNSET,
) -> IssueItem:
    """Save an edit made on version ``expected_version``; ChangedSinceRead if it is no longer current.

    Only the fields that differ from the issue as loaded (which is what the editor saw: the version
    matches) are changed; an edit that changes nothing writes nothing and records nothing. A newly
    chosen assignee must be a member or owner now (InvalidInput otherwise); one kept stays, whatever
    their role has become. ``milestone`` (an id, None for none, ``UNSET`` to leave it): a milestone newly
    chosen must be open when the edit is written (a ConditionCheck in the edit's transaction: MilestoneNotOpen,
    nothing written, when it is closing or closed); the one the issue is in stays, closed or not. A move is
    said in the history by name, as the issue page's form says it.
    """
    require_role(membership, "member")
    _check_version(issue, expected_version)
    title = issues.one_line(title)  # titles hold one line (e-mail subjects, CSV rows)
    wanted = edit_values(title=title, description=description, priority=priority, assignee=assignee, labels=labels)
    changes = {name: value for name, value in wanted.items() if value != edit_values_of(issue)[name]}
    if milestone is not UNSET and (milestone or None) != (issue.milestone or None):
        changes["milestone"] = milestone or None
    if not changes:
        return issue
    if changes.get("assignee") and not assignable(membership, changes["assignee"]):
        raise InvalidInput("only members and owners can be assigned", assignee=changes["assignee"])
    moved = _milestone_move(issue, changes["milestone"]) if "milestone" in changes else None
    before = {"title": issue.title, "priority": issue.priority, "assignee": issue.assignee}
    description_before, labels_before = issue.description or "", set(issue.labels or ())
    issue = issues.issue_update(issue, **{**edit_values_of(issue), **changes})
    after = {"title": issue.title, "priority": issue.priority, "assignee": issue.assignee}
    changed: dict[str, list[str | None]] = {k: [before[k], after[k]] for k in before if before[k] != after[k]}
    if moved is not None:
        changed["milestone"] = moved  # names, as the side form records them (selectors.activity)
        schedule_counts(issue)  # the milestones' progress
    data: dict[str, Any] = {"changed": changed}
    if (issue.description or "") != description_before:
        data["description"] = True  # read by the inbox's wording and fan-out: "edited the description"
        data["diff"] = text_diff.stored_diff(description_before, issue.description or "")  # ≤ 2 KB: the history's
    labels_after = set(issue.labels or ())
    if labels_after != labels_before:
        added, removed = sorted(labels_after - labels_before), sorted(labels_before - labels_after)
        data["labels"] = {"added": added, "removed": removed}
    activity.record(issue, kind=Kind.ISSUE_EDITED, actor=membership.user.get_username(), data=data)
    return issue


def _milestone_move(issue: IssueItem, to: str | None) -> list[str | None]:
    """[name before, name after] of a move of ``issue`` to the milestone ``to`` (the project's cached list: no
    request when cached). Whether ``to`` is open is the write's own check (MilestoneNotOpen): no read here."""
    names = milestone_names(tenant=issue.tenant, project_key=issue.project_key)
    before = issue.milestone
    return [names.get(before, before) if before else None, names.get(to, to) if to else None]


def edit_values(
    *, title: str, description: str | None, priority: str, assignee: str | None, labels: Iterable[str] | None
) -> dict[str, Any]:
    """An issue's editable fields in one shape, so that equal means unchanged."""
    return {
        "title": title,
        "description": description or "",
        "priority": priority,
        "assignee": assignee or None,
        "labels": frozenset(labels or ()),
    }


def edit_values_of(issue: IssueItem) -> dict[str, Any]:
    return edit_values(
        title=issue.title,
        description=issue.description,
        priority=issue.priority,
        assignee=issue.assignee,
        labels=issue.labels,
    )


def assignable(membership: Membership, username: str) -> bool:
    """May ``username`` be assigned in the membership's team now (a member or owner)? One SQL query."""
    return Membership.objects.filter(
        tenant=membership.tenant, user__username=username, role__in=(Role.OWNER, Role.MEMBER)
    ).exists()


def issue_change_status(
    *, membership: Membership, project: ProjectItem, issue: IssueItem, expected_version: int, to: str
) -> IssueItem:
    """Move the issue along the workflow; InvalidTransition or ChangedSinceRead change nothing."""
    require_role(membership, "member")
    _check_version(issue, expected_version, wanted=to)
    before = issue.status
    issue = issues.issue_change_status(issue, to=to)
    schedule_counts(project)
    activity.record(
        issue, kind=Kind.ISSUE_STATUS, actor=membership.user.get_username(), data={"from": before, "to": to}
    )
    leaderboard.issue_status_changed(issue, before=before)  # points: awarded or revoked, never raises
    return issue


def issue_delete(*, membership: Membership, project: ProjectItem, issue: IssueItem, expected_version: int) -> IssueItem:
    """Delete the issue (owners only): its comments, attachments and files, history and notifications' words go
    (``deleting.issue_content_remove``, first, so a request cut short is finished by deleting again), then the
    issue becomes a tombstone: its number stays taken (never given again), only "deleted by" remains. After
    it, ``deleting.issue_late_remove`` removes a comment added meanwhile (none can be added to a tombstone).
    """
    require_role(membership, "owner")
    _check_version(issue, expected_version)
    deleting.issue_content_remove(issue=issue)
    labels_before = sorted(issue.labels or ())  # the change task removes their entries if this writer stops short
    issue = issues.issue_tombstone(issue, by=membership.user.get_username())
    deleting.issue_late_remove(issue=issue)  # a comment added meanwhile, before the tombstone: no more can be
    schedule_counts(project)
    activity.record(
        issue,
        kind=Kind.ISSUE_DELETED,
        actor=membership.user.get_username(),
        data={"labels": {"removed": labels_before}} if labels_before else None,
    )
    leaderboard.issue_deleted(issue)  # a deleted issue's points go; never raises
    return issue


def schedule_counts(project: ProjectItem | IssueItem) -> None:
    """Queue one counts refresh per project (an issue: its project's) per debounce window; never fail the request."""
    pending = f"counts-pending:{project.pk}"
    refresh = enqueue.task(enqueue.REFRESH_PROJECT_COUNTS)  # a wrong name is a bug, not a broker that is down
    try:
        if cache.add(pending, 1, COUNTS_DEBOUNCE_SECONDS * 5):  # Redis errors are misses (OptionalRedisCache)
            refresh.apply_async((project.tenant, project.project_key), countdown=COUNTS_DEBOUNCE_SECONDS, retry=False)
    except enqueue.BROKER_ERRORS:  # the nightly refresh catches up
        log.warning("could not queue counts refresh for %s", project.pk, exc_info=True)
