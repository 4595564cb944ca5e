"""Staff rights (issue 20, finding 4): tracker.change_tenant alone writes no raw item and starts no destructive job.

Raw item edits need audit.edit_raw_items; jobs that write or delete data, and offboarding, need
audit.run_destructive_jobs. Every change is in the staff audit, written before the change, holding
what changed (not a copy of the item).
"""

from __future__ import annotations

import html
import io
import json
import re
import uuid
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from django.test import Client

from ddbmodels.core import connection
from ddbmodels.core import items as ddb
from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, load, new_issue, staff_user, text
from tests.tracker.orders_helpers import new_order, stored_orders
from tracker import item_json, tasks
from tracker.audit.models import AuditEntry
from tracker.models import RetiredSlug
from tracker.services.admin.jobs import JOB_KINDS

RENAMER = ("tracker.change_tenant",)  # what one grants to rename teams
RAW = "audit.edit_raw_items"
DESTRUCTIVE = "audit.run_destructive_jobs"


def login(username: str, *perms: str) -> Client:
    client = Client()
    client.force_login(staff_user(username, perms=perms))
    return client


def issue_url(client: Client, world: World, number: int) -> str:
    table = connection.table_name("issues")
    page = text(client.get(f"/admin/ddb/tables/{table}/?mode=query&pk={world.slug}%23WEB&sk_op=%3D&sk={number}"))
    (link,) = re.findall(r'href="(/admin/ddb/tables/[^"/]+/item/\?key=[^"]+)"', page)
    return html.unescape(link)


def stored_issue(world: World, number: int) -> dict[str, Any]:
    item = ddb.item_get(connection.table_name("issues"), {"pk": {"S": f"{world.slug}#WEB"}, "n": {"N": str(number)}})
    assert item is not None
    return item


def edit(client: Client, url: str, item: dict[str, Any], loaded: dict[str, Any]) -> Any:
    return client.post(url, {"item_json": json.dumps(item), "loaded": item_json.fingerprint(loaded)})


# ----------------------------------------------------------------------------- raw item edits


def test_change_tenant_alone_cannot_put_an_item_and_the_new_permission_can(world: World) -> None:
    issue = new_issue(world, "Only mine to change")
    client = login("renamer", *RENAMER)
    url = issue_url(client, world, issue.number)
    page = text(client.get(url))
    assert 'id="edit-form"' not in page  # no form it cannot use
    assert "audit.edit_raw_items" in page
    before = stored_issue(world, issue.number)
    # The attack of the finding: list-index keys naming another team, so the issue shows in its lists.
    forged = {**before, "t": {"S": "Moved"}, "xt": {"S": "other-team#open"}}
    refused = edit(client, url, forged, before)
    assert refused.status_code == 403
    assert stored_issue(world, issue.number) == before  # nothing written
    assert not AuditEntry.objects.exists()

    client.force_login(staff_user("raw-editor", perms=(*RENAMER, RAW)))
    assert 'id="edit-form"' in text(client.get(url))
    assert edit(client, url, forged, before).status_code == 302
    after = load(world, issue.number)
    assert after is not None
    assert after.title == "Moved"


def test_change_tenant_alone_cannot_delete_an_item(world: World) -> None:
    new_order(world)
    client = login("renamer", *RENAMER)
    table = connection.table_name("orders")
    page = text(client.get(f"/admin/ddb/tables/{table}/?mode=query&pk={world.slug}"))
    (link,) = re.findall(r'href="(/admin/ddb/tables/[^"/]+/item/\?key=[^"]+)"', page)
    delete_url = html.unescape(link).replace("/item/?", "/item/delete/?")
    confirm = client.get(delete_url)
    assert 'id="delete-form"' not in text(confirm)
    fingerprint = item_json.fingerprint(the_order_item(world))
    assert client.post(delete_url, {"loaded": fingerprint}).status_code == 403
    assert len(stored_orders(world)) == 1
    assert not AuditEntry.objects.exists()

    client.force_login(staff_user("raw-deleter", perms=(RAW,)))
    confirm = client.get(delete_url)
    assert client.post(delete_url, {"loaded": hidden_value(confirm, "loaded")}).status_code == 302
    assert stored_orders(world) == []
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.tenant, entry.username) == (
        "item_delete",
        "done",
        world.slug,
        "raw-deleter",
    )
    # A delete keeps the attributes' names and sizes, never their values.
    changes = entry.details["changes"]
    assert changes["c"] == {"old_size": len(json.dumps({"S": world.slug})), "new_size": None}
    assert world.member.username not in json.dumps(entry.details["changes"])


def the_order_item(world: World) -> dict[str, Any]:
    """The world's one order as DynamoDB stores it (one Query of its partition)."""
    request = {
        "TableName": connection.table_name("orders"),
        "KeyConditionExpression": "c = :c",
        "ExpressionAttributeValues": {":c": {"S": world.slug}},
    }
    (item,) = ddb.read_page(request, scan=False).items
    return item


# ----------------------------------------------------------------------------- the audit of an edit


def test_the_audit_entry_holds_the_changed_attributes_and_not_the_untouched_ones(world: World) -> None:
    issue = new_issue(world, "Before the edit", description="Untouched words of the team")
    client = login("raw-editor", RAW)
    url = issue_url(client, world, issue.number)
    before = stored_issue(world, issue.number)
    long_text = "A long description the team wrote. " * 10
    changed = {**before, "t": {"S": "After the edit"}, "ds": {"S": long_text}}
    assert edit(client, url, changed, before).status_code == 302
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.tenant, entry.username) == (
        "item_change",
        "done",
        world.slug,
        "raw-editor",
    )
    assert entry.details["key"] == {"pk": {"S": f"{world.slug}#WEB"}, "n": {"N": str(issue.number)}}
    changes = entry.details["changes"]
    assert set(changes) == {"t", "ds", "v"}  # the title, the description, the version the save bumps
    assert changes["t"] == {"old": {"S": "Before the edit"}, "new": {"S": "After the edit"}}
    assert changes["ds"] == {
        "old_size": len(json.dumps({"S": "Untouched words of the team"})),
        "new_size": len(json.dumps({"S": long_text})),
    }  # long text: its size, not a copy
    assert changes["v"] == {"old": before["v"], "new": {"N": str(int(before["v"]["N"]) + 1)}}
    stored = json.dumps(entry.details)
    assert "A long description" not in stored
    assert "Untouched words" not in stored
    assert world.member.username not in stored  # the untouched reporter


def test_the_audit_entry_is_written_before_the_put_and_kept_when_it_raises(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    issue = new_issue(world, "Crash after me")
    client = login("raw-editor", RAW)
    url = issue_url(client, world, issue.number)
    before = stored_issue(world, issue.number)
    seen_at_write: list[tuple[str, str]] = []
    real_put = ddb.item_put_unchanged

    def put_then_crash(*args: Any, **kwargs: Any) -> None:
        seen_at_write.extend(AuditEntry.objects.values_list("action", "outcome"))  # already there, pending
        real_put(*args, **kwargs)
        raise RuntimeError("the worker died after the write")

    monkeypatch.setattr(ddb, "item_put_unchanged", put_then_crash)
    with pytest.raises(RuntimeError):
        edit(client, url, {**before, "t": {"S": "Crashed"}}, before)
    assert seen_at_write == [("item_change", "pending")]
    entry = AuditEntry.objects.get()
    assert entry.outcome == "failed"
    assert entry.result == "RuntimeError: the worker died after the write"
    assert entry.details["changes"]["t"] == {"old": {"S": "Crash after me"}, "new": {"S": "Crashed"}}
    assert entry.finished_at is not None


# ----------------------------------------------------------------------------- jobs


def job_post(key: str) -> dict[str, str]:
    """A valid start of the job ``key`` (the restore names an archive the test offers)."""
    return {
        "distinct_keys": {
            "distinct_keys-table": connection.table_name("issues"),
            "distinct_keys-method": "scan",
            "distinct_keys-segments": "1",
        },
        "enumerate_projects": {"enumerate_projects-method": "scan", "enumerate_projects-segments": "1"},
        "backfill_project_counts": {"backfill_project_counts-method": "scan", "backfill_project_counts-segments": "1"},
        "rotate": {},
        "archive": {"archive-dry_run": "on"},
        "restore": {"restore-archive": "events-2026-01"},
        "reconcile": {},
    }[key] | {"job": key}


DESTRUCTIVE_JOBS = ["backfill_project_counts", "rotate", "archive", "restore", "reconcile"]
READ_ONLY_JOBS = ["distinct_keys", "enumerate_projects"]
TASKS = {
    "distinct_keys": tasks.distinct_keys,
    "enumerate_projects": tasks.enumerate_projects,
    "backfill_project_counts": tasks.backfill_project_counts,
    "rotate": tasks.rotate_event_tables,
    "archive": tasks.archive_event_tables,
    "restore": tasks.restore_event_table,
    "reconcile": tasks.reconcile_attachments,
}


@pytest.fixture(autouse=True)
def _an_archive_to_restore() -> Any:
    with mock.patch("tracker.forms.admin.jobs.archive_choices", return_value=[("events-2026-01", "events-2026-01")]):
        yield


def test_every_job_the_admin_offers_is_classified() -> None:
    from tracker.forms.admin.jobs import JOB_FORMS

    assert set(JOB_FORMS) == set(DESTRUCTIVE_JOBS) | set(READ_ONLY_JOBS)
    assert {key for key, form in JOB_FORMS.items() if JOB_KINDS[form.task]} == set(DESTRUCTIVE_JOBS)


@pytest.mark.parametrize("key", DESTRUCTIVE_JOBS)
def test_change_tenant_alone_cannot_start_a_destructive_job_and_the_new_permission_can(key: str) -> None:
    client = login("renamer", *RENAMER)
    page = text(client.get("/admin/ddb/jobs/"))
    assert f'id="job-{key}"' not in page  # not offered
    assert 'id="job-distinct_keys"' in page  # read-only jobs are
    queued = uuid.uuid4()
    with mock.patch.object(TASKS[key], "delay", return_value=mock.Mock(id=str(queued))) as delay:
        assert client.post("/admin/ddb/jobs/", job_post(key)).status_code == 403
        delay.assert_not_called()
        assert not AuditEntry.objects.exists()

        client.force_login(staff_user("destroyer", perms=(DESTRUCTIVE,)))
        assert f'id="job-{key}"' in text(client.get("/admin/ddb/jobs/"))
        started = client.post("/admin/ddb/jobs/", job_post(key))
    assert started.status_code == 302, text(started)
    delay.assert_called_once()
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.username, entry.result) == (
        "job_start",
        "done",
        "destroyer",
        str(queued),
    )
    assert entry.details["task"] == TASKS[key].name


@pytest.mark.parametrize("key", READ_ONLY_JOBS)
def test_read_only_jobs_stay_with_change_tenant_and_are_audited(key: str) -> None:
    client = login("renamer", *RENAMER)
    with mock.patch.object(TASKS[key], "delay", return_value=mock.Mock(id=str(uuid.uuid4()))) as delay:
        assert client.post("/admin/ddb/jobs/", job_post(key)).status_code == 302
    delay.assert_called_once()
    assert AuditEntry.objects.get().action == "job_start"


def test_the_job_audit_entry_is_written_before_queueing_and_marked_failed_when_it_raises() -> None:
    client = login("destroyer", DESTRUCTIVE)
    seen: list[str] = []

    def queue_then_fail(**kwargs: Any) -> Any:
        seen.extend(AuditEntry.objects.values_list("outcome", flat=True))
        raise RuntimeError("lost after queueing")

    with (
        mock.patch.object(tasks.archive_event_tables, "delay", side_effect=queue_then_fail),
        pytest.raises(RuntimeError),
    ):
        client.post("/admin/ddb/jobs/", job_post("archive"))
    assert seen == ["pending"]
    entry = AuditEntry.objects.get()
    assert (entry.outcome, entry.result) == ("failed", "RuntimeError: lost after queueing")
    assert entry.details == {"task": tasks.archive_event_tables.name, "params": {"dry_run": True}}


def test_change_tenant_alone_cannot_reconcile_attachments_from_their_page() -> None:
    client = login("renamer", *RENAMER)
    assert 'id="reconcile-form"' not in text(client.get("/admin/ddb/tracker/attachments/"))
    with mock.patch.object(tasks.reconcile_attachments, "delay", return_value=mock.Mock(id=str(uuid.uuid4()))) as delay:
        assert client.post("/admin/ddb/tracker/attachments/").status_code == 403
        delay.assert_not_called()
        client.force_login(staff_user("destroyer", perms=(DESTRUCTIVE,)))
        assert client.post("/admin/ddb/tracker/attachments/").status_code == 302
    delay.assert_called_once()
    assert AuditEntry.objects.get().username == "destroyer"


# ----------------------------------------------------------------------------- offboarding


def test_offboarding_needs_the_destructive_permission_and_is_audited_with_the_team(world: World) -> None:
    form = {"action": "offboard", "_selected_action": [str(world.tenant.pk)], "confirmed": "yes"}
    may_delete = ("tracker.view_tenant", "tracker.change_tenant", "tracker.delete_tenant")
    client = login("renamer", *may_delete)
    assert 'value="offboard"' not in text(client.get("/admin/tracker/tenant/"))  # not offered
    queued = "6f1c0a8e-0000-4000-8000-000000000000"
    with mock.patch.object(tasks.offboard_tenant, "delay", return_value=mock.Mock(id=queued)) as delay:
        assert client.post("/admin/tracker/tenant/", form).status_code == 403
        delay.assert_not_called()
        assert not AuditEntry.objects.exists()
        assert not RetiredSlug.objects.filter(slug=world.slug).exists()

        client.force_login(staff_user("offboarder", perms=(*may_delete, DESTRUCTIVE)))
        assert 'value="offboard"' in text(client.get("/admin/tracker/tenant/"))
        started = client.post("/admin/tracker/tenant/", form)
    assert started["Location"] == f"/admin/ddb/jobs/{queued}/"
    delay.assert_called_once_with(world.slug)
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.tenant, entry.username, entry.outcome, entry.result) == (
        "offboard",
        world.slug,
        "offboarder",
        "done",
        queued,
    )


def test_staff_read_the_audit_in_the_admin_and_nobody_edits_it(world: World) -> None:
    client = login("destroyer", DESTRUCTIVE)
    with mock.patch.object(tasks.rotate_event_tables, "delay", return_value=mock.Mock(id=str(uuid.uuid4()))):
        client.post("/admin/ddb/jobs/", job_post("rotate"))
    entry = AuditEntry.objects.get()
    listing = text(client.get("/admin/audit/auditentry/"))
    assert "Rotate events tables" in listing
    page = client.get(f"/admin/audit/auditentry/{entry.pk}/change/")
    assert page.status_code == 200
    assert client.post(f"/admin/audit/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_offboarding_finds_the_teams_item_entries_by_their_team_column(world: World, other_world: World) -> None:
    from tracker.services.admin.audit import team_item_entries

    for team in (world, other_world):
        issue = new_issue(team, f"Edited in {team.slug}")
        client = login(f"editor-{team.slug}", RAW)
        before = stored_issue(team, issue.number)
        edit(client, issue_url(client, team, issue.number), {**before, "t": {"S": "Edited"}}, before)
    client = login("destroyer", DESTRUCTIVE)
    with mock.patch.object(tasks.rotate_event_tables, "delay", return_value=mock.Mock(id=str(uuid.uuid4()))):
        client.post("/admin/ddb/jobs/", job_post("rotate"))
    assert AuditEntry.objects.filter(tenant=world.slug).count() == 1  # the column G2's offboarding selects on
    assert team_item_entries(world.slug, apply=False) == 1
    assert AuditEntry.objects.count() == 3  # counting removed nothing
    assert team_item_entries(world.slug, apply=True) == 1
    assert not AuditEntry.objects.filter(tenant=world.slug).exists()
    assert AuditEntry.objects.filter(tenant=other_world.slug).count() == 1  # another team's stays
    assert AuditEntry.objects.filter(action="job_start").count() == 1  # job starts hold no team content


def test_offboarding_removes_the_audits_edits_of_the_teams_items(
    world: World, other_world: World, archive_dir: Path
) -> None:
    for team in (world, other_world):
        issue = new_issue(team, f"Edited in {team.slug}")
        client = login(f"editor-{team.slug}", RAW)
        before = stored_issue(team, issue.number)
        edit(client, issue_url(client, team, issue.number), {**before, "t": {"S": "Secret plans"}}, before)
    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    report = json.loads(out.getvalue())["result"]
    assert report["places"]["staff audit"] == {"edits of the team's items": 1}
    assert not AuditEntry.objects.filter(tenant=world.slug).exists()
    assert AuditEntry.objects.filter(tenant=other_world.slug).count() == 1
