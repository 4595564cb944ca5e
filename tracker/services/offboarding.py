"""Offboarding a tenant: the job (export, verify, delete every item and file), and retiring its slug.

The work is ``ddbmodels.tenants.offboard`` (every item of the team, its import records and load
checkpoints in the ``jobs`` table among them; this job's own item is not the team's and stays);
this module gives it Django's archive and file storage, the job's fenced checkpoint, and the
relational side: the moment offboarding begins, one transaction that locks the Tenant row retires
the slug (``RetiredSlug``, which outlives the Tenant row), withdraws and deletes the team's
invitations of both kinds and removes its memberships, so nobody joins or writes while its data
is exported (``offboarding_begin``); and the record keeps the archive's place and the last run's
report, whose ``archives_rewritten`` lists what every run rewrote (``merged_archives``). Uploaded exports
still waiting for an import (the ``imports`` storage) are deleted, and so are the
team's search documents (derived from the items, so not archived: a restore rebuilds them). The Tenant row
itself is deleted by staff afterwards; deleting it is refused while any data is left
(``Tenant.data_left``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ddbmodels import tenants as ddb_tenants
from ddbmodels.core.errors import Unavailable
from tracker import enqueue
from tracker.jobs import JobRun
from tracker.models import ApiToken, Invitation, Membership, PersonalInvitation, RetiredSlug, Tenant
from tracker.search import indexing as search_indexing
from tracker.services import imports, team_leftovers
from tracker.services.attachments import DjangoBlobStore
from tracker.storage import DjangoArchiveStore

QUEUE_DOWN = "The job queue (Redis) is not answering, so the offboarding was not started. Try again once it is back."


def offboarding_job_name(slug: str) -> str:
    """One job (lock, fencing token, checkpoint) per tenant."""
    return f"offboard_tenant:{slug}"


def offboarding_begin(slug: str) -> tuple[RetiredSlug, dict[str, int]]:
    """Close the team, in one transaction: nobody joins it or stays in it once this commits.

    Locks the team's row first (both accepts, a link's and a request's by name, lock it too and check
    the retired slug under it: an accept that got there first commits before this goes on, and its
    membership is among those removed; one that comes later is refused), retires the slug, withdraws
    the open invitations of both kinds and deletes them all (what the owners typed: usernames,
    e-mail addresses), then removes the memberships and their API tokens. Counts for the report. Runs again
    harmlessly.
    """
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(slug=slug).first()  # none once staff deleted the row: a rerun
        retired, _ = RetiredSlug.objects.get_or_create(slug=slug, defaults={"reason": RetiredSlug.Reason.OFFBOARDING})
        if retired.reason != RetiredSlug.Reason.OFFBOARDING:
            retired.reason = RetiredSlug.Reason.OFFBOARDING
            retired.save(update_fields=["reason"])
        links = Invitation.objects.filter(tenant__slug=slug)
        asked = PersonalInvitation.objects.filter(tenant__slug=slug)
        closed = {"invitations_withdrawn": links.withdraw_open(), "requests_withdrawn": asked.withdraw_open()}
        closed["invitations_deleted"] = links.delete()[0] + asked.delete()[0]
        # API tokens leave with the memberships (CASCADE): deleted first, so each count says what it counts
        closed["api_tokens_deleted"] = ApiToken.objects.filter(membership__tenant__slug=slug).delete()[0]
        closed["memberships_removed"] = Membership.objects.filter(tenant__slug=slug).delete()[0]
    return retired, closed


def offboard_tenant_job(run: JobRun, *, slug: str) -> dict[str, Any]:
    """Close the team (``offboarding_begin``), then export, verify and delete (resuming any checkpoint)."""
    retired, closed = offboarding_begin(slug)
    report = ddb_tenants.offboard(
        slug,
        store=DjangoArchiveStore(),
        blobs=DjangoBlobStore(),
        shards=ddb_tenants.Shards(scores=settings.LEADERBOARD_SHARDS, events=settings.EVENTS_SHARDS),
        checkpoint=run.checkpoint(),
        save_checkpoint=run.save_checkpoint,
        progress=run.progress,
    )
    # What every run rewrote in the events archives: a run that starts over finds them clean. Kept at once,
    # so a run that dies after its DynamoDB work (its checkpoint cleared) loses none of it.
    report["archives_rewritten"] = merged_archives(
        retired.report.get("archives_rewritten", {}), report["archives_rewritten"]
    )
    retired.report = {**retired.report, "archives_rewritten": report["archives_rewritten"]}
    retired.save(update_fields=["report"])
    report.update(closed)
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


def merged_archives(before: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per archive, what the runs so far did (``before``: the last report's) and this run did (``now``).

    An archive this run found clean (or did not read) keeps what an earlier run did to it, marked
    ``in_an_earlier_run``; one this run changed again keeps the earlier entry under ``earlier_runs``.
    """
    merged = dict(now)
    for table, earlier in before.items():
        did_before = earlier.get("action") not in (None, "clean")
        current = now.get(table)
        if current is None or (did_before and current.get("action") == "clean"):
            merged[table] = {**earlier, "in_an_earlier_run": True} if did_before else earlier
        elif did_before:
            previous = [{k: v for k, v in earlier.items() if k != "earlier_runs"}]
            merged[table] = {**current, "earlier_runs": [*earlier.get("earlier_runs", []), *previous]}
    return merged


def offboarding_start(*, slug: str) -> str:
    """Queue the offboarding of ``slug`` as a Celery task; its id (Unavailable when Redis is down)."""
    offboard = enqueue.task(enqueue.OFFBOARD_TENANT)  # a wrong name is a bug, not a broker that is down
    try:
        return str(offboard.delay(slug).id)
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable(QUEUE_DOWN, queue_down=QUEUE_DOWN) from error
