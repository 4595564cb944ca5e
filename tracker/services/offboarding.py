"""Offboarding a tenant: the job (export, verify, delete every item and file), and retiring its slug.

The work is ``ddbmodels.tenants.offboard`` (every item of the team, its import records and load
checkpoints in the ``jobs`` table among them; this job's own item is not the team's and stays);
this module gives it Django's archive and file storage, the job's fenced checkpoint, and the
relational side: the slug is retired the moment offboarding begins (``RetiredSlug``, which
outlives the Tenant row), the tenant's memberships are removed so nobody writes while its data
is exported, and the record keeps the archive's place and the last run's report. Uploaded
exports still waiting for an import (the ``imports`` storage) are deleted, and so are the
team's search documents (derived from the items, so not archived: a restore rebuilds them). The Tenant row
itself is deleted by staff afterwards; deleting it is refused while any data is left
(``Tenant.data_left``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from ddbmodels import tenants as ddb_tenants
from ddbmodels.core.errors import Unavailable
from tracker import enqueue
from tracker.jobs import JobRun
from tracker.models import Invitation, Membership, RetiredSlug
from tracker.search import indexing as search_indexing
from tracker.services import imports, team_leftovers
from tracker.services.attachments import DjangoBlobStore
from tracker.storage import DjangoArchiveStore

QUEUE_DOWN = "The job queue (Redis) is not answering, so the offboarding was not started. Try again once it is back."


def offboarding_job_name(slug: str) -> str:
    """One job (lock, fencing token, checkpoint) per tenant."""
    return f"offboard_tenant:{slug}"


def offboard_tenant_job(run: JobRun, *, slug: str) -> dict[str, Any]:
    """Retire the slug, remove the memberships, then export, verify and delete (resuming any checkpoint)."""
    retired, _ = RetiredSlug.objects.get_or_create(slug=slug, defaults={"reason": RetiredSlug.Reason.OFFBOARDING})
    if retired.reason != RetiredSlug.Reason.OFFBOARDING:
        retired.reason = RetiredSlug.Reason.OFFBOARDING
        retired.save(update_fields=["reason"])
    # Nobody joins once offboarding begins: the retired slug refuses every link, and its open invitations
    # are withdrawn before the memberships go (an accept that claimed one first commits before this UPDATE
    # returns, so its membership is among those removed next; tracker.services.team).
    withdrawn = Invitation.objects.filter(tenant__slug=slug).withdraw_open()
    removed, _ = Membership.objects.filter(tenant__slug=slug).delete()
    report = ddb_tenants.offboard(
        slug,
        store=DjangoArchiveStore(),
        blobs=DjangoBlobStore(),
        shards=ddb_tenants.Shards(scores=settings.LEADERBOARD_SHARDS, events=settings.EVENTS_SHARDS),
        checkpoint=run.checkpoint(),
        save_checkpoint=run.save_checkpoint,
        progress=run.progress,
    )
    report["memberships_removed"] = removed
    report["invitations_withdrawn"] = withdrawn
    report["uploads_deleted"] = imports.uploads_delete(tenant=slug)  # exports waiting for an import
    report["search_documents_deleted"] = search_indexing.remove_tenant(slug)  # derived: not archived
    # Job checkpoints and results, the admin log's copies, Redis, orphan files: removed, then counted again.
    team = team_leftovers.Team(slug, offboarding_job=offboarding_job_name(slug))
    report["places"] = team_leftovers.sweep(team)
    report["remaining"].update(team_leftovers.left(team))
    report["finished"] = not any(report["remaining"].values())
    # Every run's archive is kept in the record; ``archive`` names the last one that holds items
    # (a run over an already empty tenant writes an empty archive and must not hide the real one).
    archives = [*retired.report.get("archives", []), report["archive"]]
    if report["exported"]["items"] or not retired.archive:
        retired.archive = report["archive"]
    retired.report = {**report, "archives": archives}
    if report["finished"]:
        retired.reason = RetiredSlug.Reason.OFFBOARDED
        retired.offboarded_at = timezone.now()
    retired.save()
    return report


def offboarding_start(*, slug: str) -> str:
    """Queue the offboarding of ``slug`` as a Celery task; its id (Unavailable when Redis is down)."""
    offboard = enqueue.task(enqueue.OFFBOARD_TENANT)  # a wrong name is a bug, not a broker that is down
    try:
        return str(offboard.delay(slug).id)
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable(QUEUE_DOWN, queue_down=QUEUE_DOWN) from error
