"""A team's managed labels: create, edit (colour, description), rename and delete, every issue following.

The data is the label registry (``ddbmodels.labels.catalogue``). Members manage labels, viewers read.

Rename and delete move every issue off the old label. The old label's own partition of entries
(``<team>#<label>``) is the work list: each entry is an issue's list row with its version, so an
issue is changed without being read first (``issues.issue_from_entry``) by the one per-issue
changer (``issues.issue_change``, labels_remove={old}, labels_add={new}), which also moves the
entries; the partition empties as the work goes, so a run that stopped is resumed by running it
again (the partition is the checkpoint). First the label is marked ``renaming``/``removing`` (on
the version the confirm page read: a stale page is a 409, and no second rename starts over a
running one), which the issue forms refuse meanwhile; at the end ``gone`` (+ ``rn`` the new name).

Up to ``IN_REQUEST_MAX`` issues are moved in the request; more by the job ``label_change:<team>:<label>``
(``tracker.tasks.change_label``, fenced, one batch of ``BATCH`` issues at a time, progress saved on the
registry item for the labels page). The request counts one page of the label's entries at most (``Limit``
``IN_REQUEST_MAX`` + 1, ≤ 2 RCU); beyond it the job counts them all before its first batch (1 RCU per 4 KB of
entries, once), and the labels page says how many are done until then. Each issue moved records an
``issue.labels_renamed`` event.

The busy mark carries the confirm form's key and who confirmed: the same confirm sent again (a double click, a
retry) says "you sent this form twice", another person's confirm of the same change names who started it, and
nothing is done twice.

Cost per issue (2 labels, ≈ 1 KB, measured by the bench row ``issues.change (label rename, 2 labels)``): the
issue's UpdateItem with its list-index entries (``lb`` is projected) 6 WCU + the old entry deleted, the new one
put and the other label's rewritten (3 WCU) + the event (2 WCU): 11 WCU; reading the work list 1 RCU per 4 KB
(≈ 13 entries). ``COST_PER_ISSUE_WCU`` is what the confirm page states. A copy older than its issue (an edit
meanwhile; or an entry a create wrote before creates gave their entries the item's version, at 0 one behind it,
until ``manage.py upgrade_search --check-labels`` repairs it) is refused (+1 WCU), its token checked and the issue
read again (+2 RCU) before the move.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from ddbmodels import issues
from ddbmodels import labels as ddb_labels
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition
from ddbmodels.events import Kind
from ddbmodels.labels import Label
from tracker import enqueue
from tracker.cache import invalidate
from tracker.issue_terms import LABEL_RE
from tracker.models import Membership
from tracker.selectors.labels import labels_cache_key
from tracker.services import activity
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)

IN_REQUEST_MAX = 25  # more issues than this move in the background job
BATCH = 25  # issues a job's batch moves (one Query of the work list)
COST_PER_ISSUE_WCU = 11  # bench row "issues.change (label rename, 2 labels)": 9 WCU, + the event's 2
STUCK_PASSES = 3  # a batch that moved nothing this many times in a row stops the run (entries that cannot move)


@dataclass(frozen=True)
class Moved:
    """What a rename or delete did in the request, or that it went on in the background."""

    label: Label
    moved: int
    queued: bool
    already: bool = False  # the same rename or delete was started before (a confirm form sent twice): nothing now
    own: bool = False  # ``already`` by this very form (its key), sent before


def _actor(membership: Membership) -> str:
    return str(membership.user.get_username())


def _check_name(name: str) -> str:
    name = name.strip().lower()
    if not name or len(name) > issues.LABEL_MAX or not LABEL_RE.match(name):
        raise InvalidInput(
            f"a label is up to {issues.LABEL_MAX} letters, digits, dots, dashes or underscores", field="name"
        )
    return name


def label_create(*, membership: Membership, name: str, colour: str, description: str) -> Label:
    """A new label of the team (registered, then saved on its first version); an unused gone one is taken up again.

    AlreadyExists-like refusal (InvalidInput on ``name``) when the team has it in use or being changed.
    """
    require_role(membership, "member")
    tenant = membership.tenant.slug
    name = _check_name(name)
    ddb_labels.registry_ensure(tenant, [name])
    current = ddb_labels.label_get(tenant, name)
    if current is None:  # registry_ensure trusted its memory of a team offboarded and made again
        ddb_labels.registry_forget()
        ddb_labels.registry_ensure(tenant, [name])
        current = ddb_labels.label_get(tenant, name) or Label(name=name)
    if current.busy:
        raise InvalidInput(f"{name} is being renamed or deleted", field="name")
    if current.state == ddb_labels.GONE:
        current = ddb_labels.label_mark(tenant, name, state=ddb_labels.IN_USE, expected_version=current.version)
    elif current.version:
        raise InvalidInput(f"the team has a label {name} already", field="name")
    try:
        return ddb_labels.label_save(
            tenant, name, colour=colour, description=description.strip(), expected_version=current.version
        )
    finally:
        invalidate(labels_cache_key(tenant))


def label_edit(*, membership: Membership, name: str, colour: str, description: str, expected_version: int) -> Label:
    """Save a label's colour and description on the version its form read (ChangedSinceRead otherwise)."""
    require_role(membership, "member")
    tenant = membership.tenant.slug
    try:
        return ddb_labels.label_save(
            tenant, name, colour=colour, description=description.strip(), expected_version=expected_version
        )
    finally:
        invalidate(labels_cache_key(tenant))


def labels_ensure(*, membership: Membership, names: list[str]) -> None:
    """Labels an issue form brings that the team never had: registered (default colour) so they show in the catalogue.

    Members only (a viewer's form never gets here). One GetItem + PutItem per new name (``registry_ensure``).
    """
    require_role(membership, "member")
    if names and ddb_labels.registry_ensure(membership.tenant.slug, names):
        invalidate(labels_cache_key(membership.tenant.slug))


def label_rename(*, membership: Membership, name: str, to: str, expected_version: int, key: str | None = None) -> Moved:
    """Rename ``name`` to ``to`` (an existing label: its issues join it), every issue following; see the module.

    ``key``: the confirm form's key (a form sent twice is told so)."""
    require_role(membership, "member")
    tenant = membership.tenant.slug
    to = _check_name(to)
    if to == name:
        raise InvalidInput("the new name is the old one", field="to")
    ddb_labels.registry_ensure(tenant, [to])
    target = ddb_labels.label_get(tenant, to) or Label(name=to)
    if target.busy:
        raise InvalidInput(f"{to} is being renamed or deleted itself", field="to")
    old = ddb_labels.label_get(tenant, name)
    if old is not None and _started_before(old, expected_version, to=to):
        return _already(old, key)
    if old is None or old.version != expected_version or not old.in_use:
        raise ChangedSinceRead(f"label {name} changed since it was read", current=old.state if old else None)
    _not_a_target(tenant, name)
    if target.state == ddb_labels.GONE:
        target = ddb_labels.label_mark(tenant, to, state=ddb_labels.IN_USE, expected_version=target.version)
    if target.version == 0:  # a new name takes the old one's colour and description
        ddb_labels.label_save(tenant, to, colour=old.colour, description=old.description, expected_version=0)
    return _start(membership, old, state=ddb_labels.RENAMING, to=to, key=key)


def label_delete(*, membership: Membership, name: str, expected_version: int, key: str | None = None) -> Moved:
    """Take the label off every issue and mark it gone (its registry item stays); see the module."""
    require_role(membership, "member")
    old = ddb_labels.label_get(membership.tenant.slug, name)
    if old is not None and _started_before(old, expected_version, to=""):
        return _already(old, key)
    if old is None or old.version != expected_version or not old.in_use:
        raise ChangedSinceRead(f"label {name} changed since it was read", current=old.state if old else None)
    _not_a_target(membership.tenant.slug, name)
    return _start(membership, old, state=ddb_labels.REMOVING, to="", key=key)


def _already(label: Label, key: str | None) -> Moved:
    """The change was started before (nothing is done now): by this form (its key on the mark) or another."""
    return Moved(label=label, moved=0, queued=False, already=True, own=bool(key) and label.form_key == key)


def _started_before(old: Label, expected_version: int, *, to: str) -> bool:
    """The label was marked for this very change after the version the form read (the same confirm sent twice,
    or the same change confirmed by someone else): renaming/removing to ``to``, or gone to it."""
    return (
        old.version > expected_version
        and old.state in (ddb_labels.RENAMING if to else ddb_labels.REMOVING, ddb_labels.GONE)
        and old.renamed_to == to
    )


def _not_a_target(tenant: str, name: str) -> None:
    """Refuse to rename or delete a label a running rename moves issues to (they would end on a gone label).

    One Query of the registry, consistent (≈ 1 RCU a hundred labels). Two starts at the same moment
    are caught by ``label_move``, which checks its target before each batch.
    """
    for label in ddb_labels.label_catalogue(tenant, consistent=True):
        if label.busy and label.renamed_to == name:
            raise InvalidInput(f"{label.name} is being renamed to {name}: wait until it is done", field="to")


def _start(membership: Membership, old: Label, *, state: str, to: str, key: str | None) -> Moved:
    """Mark the label busy on the version read, then move its issues here (≤ ``IN_REQUEST_MAX``) or queue the job.

    One page of its entries is counted (≤ 2 RCU); more than fit: the total is left at 0 for the job to count.
    A mark refused because the same change was started meanwhile (two sends of one form at the same moment) is
    ``already``, not a conflict."""
    tenant = membership.tenant.slug
    count = ddb_labels.label_issue_count(tenant, old.name, limit=IN_REQUEST_MAX)
    more = count > IN_REQUEST_MAX
    try:
        busy = ddb_labels.label_mark(
            tenant,
            old.name,
            state=state,
            expected_version=old.version,
            renamed_to=to,
            total=0 if more else count,
            form_key=key or "",
            by=_actor(membership),
        )
    except ChangedSinceRead:
        now = ddb_labels.label_get(tenant, old.name)
        if now is not None and _started_before(now, old.version, to=to):
            return _already(now, key)
        raise
    invalidate(labels_cache_key(tenant))
    if more:
        return Moved(label=busy, moved=0, queued=label_change_queue(membership=membership, name=old.name))
    moved = label_move(tenant=tenant, label=busy, actor=_actor(membership))
    return Moved(label=ddb_labels.label_get(tenant, old.name) or busy, moved=moved, queued=False)


def label_change_queue(*, membership: Membership, name: str) -> bool:
    """Queue the job moving a busy label's issues (also the labels page's "Resume"); False if the queue is down."""
    require_role(membership, "member")
    try:
        enqueue.delay(enqueue.CHANGE_LABEL, membership.tenant.slug, name, _actor(membership))
    except enqueue.BROKER_ERRORS:
        log.warning("could not queue the change of label %s", name, exc_info=True)
        return False
    return True


def _token(label: Label) -> str:
    """The changer's token of one rename or delete: the busy mark's version is unique to it, and the same on resume."""
    return f"label:{label.name}:{label.version}"


def move_issue(*, tenant: str, label: Label, entry: dict[str, Any], actor: str) -> bool:
    """Move one issue (its entry of the old label) to the new label, or off the label; True when it changed.

    A version that moved meanwhile: the issue is read again (consistent GetItem, 1 RCU) and tried once
    more. An entry its issue does not back (deleted, or the label already gone from it) is repaired from
    the issue (``issue_labels_reconcile``), so the work list still empties; so is one whose issue holds this
    change's token already (``replayed``: a run stopped after the issue's update, before its entries moved),
    whose move is recorded again (the move's own event key: once in the history, once to each endpoint).
    """
    issue = issues.issue_from_entry(tenant, entry)
    add = {label.renamed_to} if label.renamed_to else set()
    for attempt in range(2):
        try:
            change = issues.issue_change(issue, token=_token(label), labels_remove={label.name}, labels_add=add)
        except ChangedSinceRead:
            fresh = issues.issue_get(
                tenant=tenant, project_key=issue.project_key, number=int(issue.number), consistent=True
            )
            if fresh is None or attempt:
                break
            issue = fresh
            continue
        except InvalidTransition:  # deleted meanwhile
            break
        if change.to_record:  # this run's move (its answer may have been lost), or an earlier run's, again:
            activity.record(  # under the move's own key (its time and the run's token), so never doubled
                change.issue,
                kind=Kind.ISSUE_LABELS_RENAMED,
                actor=actor,
                data={
                    "from": label.name,
                    "to": label.renamed_to,
                    "labels": {"added": sorted(add), "removed": [label.name]},
                },
                key=change.event_key(Kind.ISSUE_LABELS_RENAMED),
            )
        if change.changed:
            return True
        break  # nothing to change (the entry is stale), or replayed: this run's change is on the issue already
        # (a run stopped between the issue's update and its entries' move, or before recording it): the entries
        # are repaired below
    issues.issue_labels_reconcile(
        tenant=tenant, project_key=issue.project_key, number=int(issue.number), labels_also=[label.name]
    )
    return False


def label_move(*, tenant: str, label: Label, actor: str, limit: int | None = None, on_batch: Any = None) -> int:
    """Move the busy label's issues batch by batch until its partition is empty, then mark it gone; how many moved.

    ``limit``: stop after that many batches (the label stays busy; a later run goes on). ``on_batch(done)``
    runs before each batch (a job's fence and progress). Stops (label left busy) when batches move nothing
    ``STUCK_PASSES`` times in a row.
    """
    moved = stuck = batches = 0
    done = label.done
    while limit is None or batches < limit:
        entries = ddb_labels.label_entries(tenant, label.name, limit=BATCH)
        if not entries:
            ddb_labels.label_mark(
                tenant, label.name, state=ddb_labels.GONE, expected_version=label.version, renamed_to=label.renamed_to
            )
            invalidate(labels_cache_key(tenant))
            return moved
        if label.renamed_to and not _target_ready(tenant, label):
            return moved
        if on_batch is not None:
            on_batch(done)
        changed = sum(move_issue(tenant=tenant, label=label, entry=entry, actor=actor) for entry in entries)
        left = ddb_labels.label_entries(tenant, label.name, limit=1)
        first_same = bool(left) and left[0]["s"] == entries[0]["s"]
        stuck = stuck + 1 if first_same and not changed else 0
        if stuck >= STUCK_PASSES:
            log.warning("label %s of %s: %d entries would not move", label.name, tenant, len(entries))
            return moved
        moved += changed
        done = min(label.total, done + len(entries)) if label.total else done + len(entries)
        ddb_labels.label_progress(tenant, label.name, done=done)
        batches += 1
    invalidate(labels_cache_key(tenant))
    return moved


def _target_ready(tenant: str, label: Label) -> bool:
    """The label a rename moves issues to is in use (GetItem, 1 RCU a batch): not itself being renamed, deleted or
    gone (two starts at the same moment); otherwise the run stops, the label left busy, and says so in the log."""
    target = ddb_labels.label_get(tenant, label.renamed_to)
    if target is not None and target.in_use:
        return True
    log.warning(
        "label %s of %s: its new name %s is not in use now; the rename stops", label.name, tenant, label.renamed_to
    )
    return False


def change_label_job(run: Any, *, tenant: str, name: str, actor: str) -> dict[str, Any]:
    """The job ``label_change:<team>:<label>``: move a busy label's issues (resumable: the partition is the
    checkpoint); fenced before every batch; progress on the registry item and the task's state."""
    label = ddb_labels.label_get(tenant, name)
    if label is None or not label.busy:
        return {"label": name, "moved": 0, "state": label.state if label else "missing"}
    if not label.total:  # too many for the request to count: every page of the entries, once, before the moves
        run.fence()
        total = label.done + ddb_labels.label_issue_count(tenant, name)
        ddb_labels.label_progress(tenant, name, done=label.done, total=total)
        label = dataclasses.replace(label, total=total)

    def before_batch(done: int) -> None:
        run.fence()
        run.progress(done=done, total=label.total)

    moved = label_move(tenant=tenant, label=label, actor=actor, on_batch=before_batch)
    after = ddb_labels.label_get(tenant, name)
    return {"label": name, "moved": moved, "state": after.state if after else "missing"}
