"""An owner's upload of a GitHub issues export into a new project: checked, kept in storage, imported by a job.

The import's record is an item of the ``jobs`` table, ``import_upload:<tenant>:<id>`` (the id is
the form's idempotency key, a ULID): its checkpoint holds the import as JSON (project, file, what
it will import, status, summary), written under the item's fencing token — token 1 by the page
that queued it, the next ones by the job's runs (``tracker.jobs.run_job``). A second submit of
the same form is told apart by a claim, ``import_claim:<tenant>:<id>``: an atomic ``ADD 1`` whose
first caller gets 1; every later one leads to the first one's progress page and queues nothing.
Both items, and the load's checkpoint, carry the team (``jobs.fence_acquire(tenant=)``), so
offboarding the team deletes them with the rest of its data.

The file goes to the ``imports`` storage (a folder, or S3 in production), never into the Celery
message: the task carries the team and the id. The job creates the project, writes the issues
and comments with ``tracker.imports.load`` (BatchWriteItem under ``IMPORT_MAX_WCU``, checkpointed,
so a retried task writes nothing twice), refreshes the project's counts, records the summary and
deletes the file. Measured on DynamoDB Local: queueing 1.5 RCU + 6 WCU (is the id or the key
taken? claim, token, the record twice; the claim's and the record's ``by_tenant`` entries), the
same form again 1 RCU; the job the load at its floor (a 24-entry export: 96 WCU) + 13 WCU of
tokens, checkpoints, project and counts, 8.5 RCU.

One import has three write figures, each named where it is shown: its issues and comments (the
summary's ``wcu``, 96 above), the load with its own progress records (``load_wcu``, 100: the
Capacity page's ``issues.import`` row), and the whole run with the project, counts, tokens and
the import's record (109: Capacity by job, the Jobs history); queueing it (6 WCU) is the upload
page's, Capacity by page. Progress is the task's ``PROGRESS`` state, read by
``/t/<team>/imports/<id>/status.json`` (1 RCU a poll).
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

from ddbmodels import issues as ddb_issues
from ddbmodels import jobs
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core import capacity
from ddbmodels.core.errors import AWS_ERRORS, PYNAMODB_ERRORS, AlreadyExists, DomainError, InvalidInput, Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import ProjectItem
from ddbmodels.jobs import FencedOut
from tracker import enqueue
from tracker.cache import invalidate
from tracker.imports import load
from tracker.imports import projects as import_projects
from tracker.imports.preview import FORMAT, Preview, import_preview
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.search import indexing as search_indexing
from tracker.selectors.imports import ImportState, import_get, import_job_name
from tracker.selectors.projects import project_cache_key, project_list_cache_key
from tracker.services.permissions import require_role
from tracker.services.projects import project_counts_refresh

log = logging.getLogger(__name__)
QUEUE_DOWN = "The job queue was not answering, so the import did not start; nothing was imported."
NOT_STORED = "The file could not be stored, so the import did not start; nothing was imported."
FORM_LOST = "The first submission of this form did not finish. Reload the form and submit the file again."
# what a folder or S3 may raise when a file cannot be written, read or deleted
STORAGE_ERRORS: tuple[type[Exception], ...] = (OSError, *AWS_ERRORS)
# what recording a failed import may itself meet: a newer run's word (FencedOut), or DynamoDB down
NOT_RECORDED: tuple[type[Exception], ...] = (DomainError, *PYNAMODB_ERRORS)


def _storage() -> Storage:
    return storages["imports"]


def _upload_name(tenant: str, import_id: str) -> str:
    return f"{tenant}/{import_id}.json"


def claim_name(tenant: str, import_id: str) -> str:
    return f"import_claim:{tenant}:{import_id}"


@dataclass(frozen=True)
class Queued:
    import_id: str
    first: bool  # False: this form was submitted before; nothing new was queued


def import_queue(
    *,
    membership: Membership,
    key: str,
    name: str,
    data: bytes,
    filename: str,
    preview: Preview,
    idempotency_key: str | None = None,
) -> Queued:
    """Keep the upload and queue its import (owners only); the same ``idempotency_key`` again queues nothing.

    Raises AlreadyExists when the team has a project ``key`` (and this form queued nothing
    before), Unavailable when storage or the job queue refused (the import is then recorded as
    not started, so a retry of the same form says so instead of waiting forever).
    """
    require_role(membership, "owner")
    tenant = membership.tenant.slug
    import_id = idempotency_key or new_attachment_id()
    if import_get(tenant=tenant, import_id=import_id) is not None:
        return Queued(import_id, first=False)
    if ddb_issues.project_get(tenant=tenant, key=key) is not None:
        raise AlreadyExists(f"project {key} already exists", tenant=tenant, key=key)
    if jobs.fence_acquire(claim_name(tenant, import_id), membership.user.get_username(), tenant=tenant) > 1:
        # A double submit racing its twin: its page exists once the twin has recorded it (ms later).
        if not _wait_for_record(tenant, import_id):
            raise Unavailable(FORM_LOST, why=FORM_LOST)  # the twin died between its claim and its record
        return Queued(import_id, first=False)
    job = import_job_name(tenant, import_id)
    token = jobs.fence_acquire(job, "web", tenant=tenant)  # the team's item: offboarding deletes it
    state = ImportState(
        import_id=import_id,
        tenant=tenant,
        token=token,
        status="uploading",
        project=key,
        name=name,
        file=filename,
        size=len(data),
        issues=preview.issues,
        pull_requests=preview.pull_requests,
        comments=preview.comments,
        top=preview.top,
        owner=membership.user.get_username(),
        queued_at=utcnow().isoformat(timespec="seconds"),
        task_id=str(uuid.uuid4()),
        upload=_upload_name(tenant, import_id),
    )
    jobs.checkpoint_save(job, token, state.dump())  # at once: the twin of a double submit shows this page
    try:
        saved = _storage().save(state.upload, ContentFile(data, name=state.upload))
    except STORAGE_ERRORS as error:
        _give_up(state, NOT_STORED)
        raise Unavailable("the upload could not be stored", why=NOT_STORED) from error
    state.upload, state.status = saved, "queued"  # saved: the storage's own name for it
    jobs.checkpoint_save(job, token, state.dump())
    run_import = enqueue.task(enqueue.IMPORT_GITHUB_EXPORT)  # a wrong name is a bug, not a broker that is down
    try:
        run_import.apply_async(args=[tenant, import_id], task_id=state.task_id)
    except enqueue.BROKER_ERRORS as error:
        if _give_up(state, QUEUE_DOWN):
            raise Unavailable(QUEUE_DOWN, queue_down=QUEUE_DOWN, why=QUEUE_DOWN) from error
        # the message went out after all (a worker holds the import now): it is queued
    return Queued(import_id, first=True)


def _wait_for_record(tenant: str, import_id: str, *, attempts: int = 20, pause_s: float = 0.1) -> bool:
    """Until the first submit has recorded its import (milliseconds after its claim): a GetItem each, ≤ 2 s.

    False when it never did: that submit died between its claim and its record.
    """
    for _ in range(attempts):
        if import_get(tenant=tenant, import_id=import_id) is not None:
            return True
        time.sleep(pause_s)
    return False


def _give_up(state: ImportState, message: str) -> bool:
    """Record that the import never started and drop its file; False when a worker already holds it.

    A message the broker refused may have gone out all the same: a run that took the next fencing
    token owns the import, its record and its file, so nothing is written or deleted here then.
    """
    state.status, state.error = "not_started", message
    try:
        jobs.checkpoint_save(import_job_name(state.tenant, state.import_id), state.token, state.dump())
    except FencedOut:
        return False
    _delete_upload(state)
    return True


def _delete_upload(state: ImportState) -> None:
    try:
        _storage().delete(state.upload)
    except STORAGE_ERRORS as error:  # the import's outcome stands; the operator sees the leftover in the log
        log.warning("import %s: upload %s not deleted: %s", state.import_id, state.upload, error)


def uploads_delete(*, tenant: str) -> int:
    """Delete every export still waiting in storage for one of the team's imports (offboarding); how many.

    An upload is deleted when its import ends; one whose import never ran to an end would
    otherwise outlive the team. They are the team's own export files, nothing the tracker made.
    """
    storage = _storage()
    try:
        _, names = storage.listdir(tenant)
    except FileNotFoundError:  # a folder never made: the team never uploaded
        return 0
    for name in names:
        storage.delete(f"{tenant}/{name}")
    return len(names)


def _save(run: JobRun, state: ImportState) -> None:
    state.token = run.token
    run.save_checkpoint(state.dump())


def _fingerprint(tenant: str, key: str, data: bytes) -> str:
    """The one ``manage.py import_issues`` computes for the same team, format, key and file: one checkpoint."""
    digest = hashlib.sha256(f"{tenant}\n{FORMAT}".encode())
    digest.update(f"\n{key}\n".encode() + data)
    return digest.hexdigest()


def _project(state: ImportState) -> ProjectItem | None:
    """Create the project, closed to new issues until the import is done; None when the key was taken meanwhile.

    While ``importing`` names this import's job, new issues are refused (``tracker.imports.projects``):
    the load's puts would overwrite one that took a number of the export. A project with the key
    that this import's job holds is its own (an earlier run created it, or botocore retried a
    create whose answer was lost); any other is somebody else's, and nothing is written to it.
    """
    try:
        project = ddb_issues.project_create(
            tenant=state.tenant,
            key=state.project,
            name=state.name,
            created_by=state.owner,
            importing=import_job_name(state.tenant, state.import_id),
        )
    except AlreadyExists:
        found = ddb_issues.project_get(tenant=state.tenant, key=state.project, consistent=True)
        mine = found is not None and found.importing == import_job_name(state.tenant, state.import_id)
        return found if mine else None
    invalidate(project_cache_key(state.tenant, state.project), project_list_cache_key(state.tenant))
    return project


def import_run_job(run: JobRun, *, tenant: str, import_id: str) -> dict[str, Any]:
    """The job: create the project, write the export, refresh the counts, record the summary, drop the file.

    Runs again after a crash or a retry without writing anything twice: the load resumes from its
    checkpoint, and a finished (or never started) import only makes sure its file is gone.
    """
    state = import_get(tenant=tenant, import_id=import_id)
    if state is None:
        raise InvalidInput("no such import", tenant=tenant, import_id=import_id)
    if state.status in ("done", "failed", "not_started"):
        if state.status != "not_started":  # a run that stopped after recording its end: open the project
            import_projects.release(tenant=tenant, job=import_job_name(tenant, import_id), keys=[state.project])
        _delete_upload(state)
        return state.result()
    state.status = "running"
    try:
        with _storage().open(state.upload, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return _fail(run, state, "The uploaded file is gone from storage, so nothing more can be imported.")
    preview = import_preview(data=data, name=state.file)
    state.stage = "creating the project"
    _save(run, state)
    if _project(state) is None:
        taken = f"A project {state.project} was created by someone else meanwhile; nothing was imported."
        return _fail(run, state, taken)
    origin = load.Origin(source=FORMAT, by=state.owner, at=datetime.fromisoformat(state.queued_at))
    fingerprint = _fingerprint(tenant, state.project, data)
    plan = load.plan(tenant, {state.project: preview.records}, fingerprint=fingerprint, origin=origin)
    earlier = jobs.job_state(plan.job)
    done = int(earlier.checkpoint) if earlier is not None and earlier.checkpoint else 0
    state.stage, state.total, state.minimum_wcu = "writing", len(plan.requests), plan.minimum_wcu
    _save(run, state)
    run.progress(stage=state.stage, done=done, total=state.total)

    def wrote(count: int) -> None:
        nonlocal done
        done += count
        run.progress(stage="writing", done=done, total=state.total)

    with capacity.measure() as load_meter:  # the load with its progress records: the issues.import pattern's figure
        loaded = load.run(plan, max_wcu=settings.IMPORT_MAX_WCU, on_batch=wrote)
    project_counts_refresh(tenant=tenant, key=state.project)
    search_indexing.rebuild_after_import(tenant=tenant, project_key=state.project)
    state.status, state.stage = "done", "done"
    state.summary = {
        "issues": preview.issues,
        "pull_requests": preview.pull_requests,
        "comments": preview.comments,
        "items": len(plan.requests),
        "written": loaded.written,
        "resumed_after": loaded.skipped,
        "wcu": round(loaded.wcu, 1),  # the issues and comments written (BatchWriteItem only)
        "load_wcu": round(load_meter.wcu, 1),  # + the load's progress records (Capacity: issues.import)
        "minimum_wcu": plan.minimum_wcu,
        "seconds": round(loaded.seconds, 2),
        "wcu_per_second": round(loaded.rate, 1),
        "max_wcu": settings.IMPORT_MAX_WCU,
        "next_number": preview.top + 1,
    }
    _save(run, state)  # "done" first: a run that dies before the release finds the project its own
    import_projects.release(tenant=tenant, job=import_job_name(tenant, import_id), keys=[state.project])
    _delete_upload(state)
    return state.result()


def _fail(run: JobRun, state: ImportState, message: str) -> dict[str, Any]:
    state.status, state.error = "failed", message
    _save(run, state)
    # an earlier run may have created (and held) the project: it takes new issues again (no-op otherwise)
    job = import_job_name(state.tenant, state.import_id)
    import_projects.release(tenant=state.tenant, job=job, keys=[state.project])
    _delete_upload(state)
    return state.result()


def import_stopped(*, tenant: str, import_id: str, error: BaseException) -> None:
    """After the task failed for good: record a truthful message and drop the file (best effort)."""
    state = import_get(tenant=tenant, import_id=import_id)
    if state is None or state.status in ("done", "failed", "not_started"):
        return
    what = str(error) if isinstance(error, DomainError) else f"an unexpected error ({type(error).__name__})"
    state.status = "failed"
    state.error = (
        f"The import stopped before it finished: {what}. What was written stays; the items were written "
        "in a fixed order from a checkpoint, so nothing is in the project twice."
    )
    try:
        jobs.checkpoint_save(import_job_name(tenant, import_id), state.token, state.dump())
        # What was written stays, and the project takes new issues again (numbers above the highest).
        import_projects.release(tenant=tenant, job=import_job_name(tenant, import_id), keys=[state.project])
    except NOT_RECORDED as failure:  # FencedOut: a newer run's word stands; or DynamoDB is down
        log.warning("import %s: failure not recorded: %s", import_id, failure)
    _delete_upload(state)
