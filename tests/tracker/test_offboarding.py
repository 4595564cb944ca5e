"""Offboarding a tenant: every item of every table exported, verified and deleted; the slug retired for good."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from ddbmodels import comments, events, inbox, issues, orders, scores
from ddbmodels.core import connection
from ddbmodels.inbox import mail as inbox_mail
from ddbmodels.patterns import item_archive
from ddbmodels.tenants import offboarding as ddb_offboard
from ddbmodels.tenants import reads as tenant_reads
from tests.tracker.conftest import World
from tracker import tasks
from tracker.models import Membership, RetiredSlug, Tenant, TenantHasData
from tracker.services.attachments import attachment_add
from tracker.storage import DjangoArchiveStore


def populate(world: World) -> None:
    """Data in every table: issues (one resolved, awarded), attachments with files, comments, orders, scores, events,
    watchers and a notification."""
    slug, member = world.slug, world.member.username
    first = issues.issue_create(
        tenant=slug,
        project_key="WEB",
        title="Ship it",
        reporter=member,
        assignee=member,
        priority="high",
        labels=["release", "ops"],  # label entries under their own keys, and the team's label registry
        idempotency_key=f"{slug}-form-1",  # an idempotency record under its own key
    ).item
    second = issues.issue_create(tenant=slug, project_key="WEB", title="Docs", reporter=member).item
    issues.project_create(tenant=slug, key="OPS", name="Operations", created_by=world.owner.username)
    issues.issue_create(tenant=slug, project_key="OPS", title="Backups", reporter=member)
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    for issue, name in ((first, "plan.txt"), (first, "notes.txt"), (second, "readme.txt")):
        upload = SimpleUploadedFile(name, f"{slug} {name}".encode())
        attachment_add(membership=membership, issue=issue, upload=upload, filename=name)
    resolved = issues.issue_change_status(first, to="resolved")
    scores.award_issue(resolved)
    scores.score_add(tenant=slug, username=world.owner.username, points=3)
    for quantity in (1, 2):
        orders.order_place(customer=slug, product="seats", quantity=quantity, delivery="standard", placed_by=member)
    for number, body in ((1, "On it."), (1, "Done: see plan.txt"), (2, "Needs a review")):
        comments.comment_add(tenant=slug, project_key="WEB", number=number, author=member, body=body)
    inbox.watch(tenant=slug, project_key="WEB", number=1, username=member)
    inbox.watch(tenant=slug, project_key="OPS", number=1, username=world.owner.username)
    note = inbox.Note(world.owner.username, "WEB", 1, member, "issue.status", f"{member} resolved WEB-1")
    note_key = "2026-11-22T10:15:30.123Z#0000000a"
    inbox.deliver(tenant=slug, event_key=note_key, notes=[note])
    # the owner's mail window for WEB-1 (its e-mail not sent yet): in the person's collection too
    inbox_mail.window_add(tenant=slug, username=world.owner.username, project_key="WEB", number=1, event_key=note_key)
    for n in range(3):
        events.event_put(stream=f"{slug}#WEB#{n + 1}", kind="issue.edited", actor=member, tenant=slug, data={"n": n})


def _scan_count(table: str, attribute: str, value: str, *, prefix: bool) -> int:
    """Test-only truth: a whole-table Scan (the code under test never scans)."""
    client = connection.client()
    condition = "begins_with(#a, :v)" if prefix else "#a = :v"
    request: dict[str, Any] = {
        "TableName": table,
        "FilterExpression": condition,
        "ExpressionAttributeNames": {"#a": attribute},
        "ExpressionAttributeValues": {":v": {"S": value}},
        "ConsistentRead": True,
    }
    count = 0
    while True:
        page = client.scan(**request)
        count += page["Count"]
        if "LastEvaluatedKey" not in page:
            return count
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def stored(slug: str) -> dict[str, int]:
    """The tenant's items in every table, counted by Scans."""
    name = connection.table_name
    counts = {
        "issues": _scan_count(name("issues"), "pk", f"{slug}#", prefix=True),
        "orders": _scan_count(name("orders"), "c", slug, prefix=False),
        "attachments": _scan_count(name("attachments"), "pk", f"{slug}#", prefix=True),
        "comments": _scan_count(name("comments"), "s", f"{slug}#", prefix=True),
        "scores": _scan_count(name("scores"), "pk", f"{slug}#", prefix=True),
        "events": sum(_scan_count(t, "tenant", slug, prefix=False) for t in tenant_reads.event_tables()),
        "inbox": _scan_count(name("inbox"), "pk", f"{slug}#", prefix=True),
        # the label registry (PK the team) and each label's entries (PK "<team>#<label>")
        "labels": _scan_count(name("labels"), "lk", slug, prefix=False)
        + _scan_count(name("labels"), "lk", f"{slug}#", prefix=True),
        "idempotency_keys": _scan_count(name("idempotency_keys"), "k", f"{slug}#", prefix=True),
    }
    for base in ("idempotency", "terms"):  # the old layouts' tables, keyed by the team, while they exist
        key = tenant_reads.tenant_key_name(base)
        if key is not None:
            counts[base] = _scan_count(name(base), key, slug, prefix=False)
    return counts


def files_of(media: Path, slug: str) -> list[str]:
    folder = media / "attachments" / slug
    return sorted(str(p.relative_to(media)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def offboard(slug: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("offboard_tenant", slug, "--yes", "--json", stdout=out)
    return json.loads(out.getvalue())


def test_offboarding_exports_verifies_and_deletes_every_item_and_file_of_the_tenant_only(
    world: World, other_world: World, media: Path, archive_dir: Path
) -> None:
    populate(world)
    populate(other_world)
    before, others_before = stored(world.slug), stored(other_world.slug)
    tables = ("issues", "orders", "attachments", "comments", "scores", "events", "inbox", "labels", "idempotency_keys")
    assert all(before[t] for t in tables), before
    assert (before["labels"], before["idempotency_keys"]) == (2 + 2, 1)  # 2 registry items + 2 entries
    assert before["comments"] == 3
    others_files = files_of(media, other_world.slug)
    assert len(files_of(media, world.slug)) == 3

    report = offboard(world.slug)

    result = report["result"]
    assert report["status"] == "done"
    assert all(n == 0 for n in stored(world.slug).values())
    assert files_of(media, world.slug) == []
    assert stored(other_world.slug) == others_before
    assert files_of(media, other_world.slug) == others_files
    assert result["exported"]["items"] == sum(before.values())
    assert result["files"] == 3
    assert result["finished"]
    assert not any(result["remaining"].values())
    check = item_archive.verify(DjangoArchiveStore(), result["archive"])
    assert check.ok
    assert check.items == sum(before.values())
    assert check.files == 3
    assert report["capacity"]["rcu"] > 0
    assert report["capacity"]["wcu"] >= sum(before.values())
    retired = RetiredSlug.objects.get(slug=world.slug)
    assert retired.reason == RetiredSlug.Reason.OFFBOARDED
    assert retired.archive == result["archive"]
    assert not Membership.objects.filter(tenant=world.tenant).exists()


def test_an_offboarded_slug_can_never_be_taken_again_even_after_the_row_is_deleted(
    world: World, archive_dir: Path, admin_client: Client
) -> None:
    populate(world)
    offboard(world.slug)
    Tenant.objects.get(slug=world.slug).delete()  # allowed now: nothing is left
    assert RetiredSlug.objects.filter(slug=world.slug).exists()

    with pytest.raises(CommandError, match="never reused"):
        call_command("create_tenant", world.slug, name="Again", owner="zoe", password="a-long-pass-phrase")
    page = admin_client.post("/admin/tracker/tenant/add/", {"slug": world.slug, "name": "Again", **_no_members()})
    assert page.status_code == 200
    assert "never reused" in page.content.decode()
    assert not Tenant.objects.filter(slug=world.slug).exists()


def test_a_deleted_tenants_slug_is_retired_too(make_world: Callable[..., World]) -> None:
    world = make_world(with_project=False)
    world.tenant.delete()
    with pytest.raises(CommandError, match="never reused"):
        call_command("create_tenant", world.slug, name="Again", owner="zed", password="a-long-pass-phrase")


def test_a_slug_whose_dynamodb_data_outlived_its_row_is_refused() -> None:
    issues.project_create(tenant="ghost-co", key="WEB", name="Left behind", created_by="ann")
    with pytest.raises(CommandError, match="still holds data"):
        call_command("create_tenant", "ghost-co", name="Ghost", owner="gus", password="a-long-pass-phrase")


def _no_members() -> dict[str, str]:
    prefix = "memberships"
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}


def test_deleting_a_tenant_whose_data_exists_is_refused_by_the_model_and_the_admin(
    world: World, admin_client: Client
) -> None:
    with pytest.raises(TenantHasData, match="offboard it first"):
        world.tenant.delete()
    with pytest.raises(TenantHasData):
        Tenant.objects.filter(pk=world.tenant.pk).delete()
    page = admin_client.post(f"/admin/tracker/tenant/{world.tenant.pk}/delete/", {"post": "yes"}, follow=True)
    assert "was not deleted" in page.content.decode()
    assert Tenant.objects.filter(pk=world.tenant.pk).exists()
    assert not RetiredSlug.objects.filter(slug=world.slug).exists()


def test_a_crash_in_the_middle_of_the_deletes_resumes_from_the_checkpoint_and_finishes(
    world: World, media: Path, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(world)
    before = stored(world.slug)
    real_delete = ddb_offboard.delete_keys
    calls = {"n": 0}

    def dies_after_two_batches(table: str, keys: list[dict[str, Any]]) -> None:
        calls["n"] += 1
        if calls["n"] > 2:
            raise RuntimeError("worker killed")
        real_delete(table, keys)

    monkeypatch.setattr(ddb_offboard, "BATCH_SIZE", 4)
    monkeypatch.setattr(ddb_offboard, "delete_keys", dies_after_two_batches)
    with pytest.raises(RuntimeError, match="worker killed"):
        offboard(world.slug)
    halfway = stored(world.slug)
    deleted = sum(before.values()) - sum(halfway.values())
    assert 0 < deleted < sum(before.values())  # two batches gone, the rest kept
    assert files_of(media, world.slug)  # files go only after every item

    monkeypatch.setattr(ddb_offboard, "delete_keys", real_delete)
    report = offboard(world.slug)["result"]

    assert report["resumed_from"]["stage"] == "delete"
    assert report["deleted_before_this_run"] == deleted
    assert report["exported"]["items"] == sum(before.values())  # the archive was not rewritten
    assert all(n == 0 for n in stored(world.slug).values())
    assert files_of(media, world.slug) == []
    assert item_archive.verify(DjangoArchiveStore(), report["archive"]).ok


def test_without_yes_the_command_refuses_or_asks_and_changes_nothing(
    world: World, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(world)
    before = stored(world.slug)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal
    with pytest.raises(CommandError, match="--yes"):
        call_command("offboard_tenant", world.slug)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Not confirmed"):
        call_command("offboard_tenant", world.slug)
    assert stored(world.slug) == before
    assert not RetiredSlug.objects.filter(slug=world.slug).exists()
    assert Membership.objects.filter(tenant=world.tenant).count() == 3


def test_the_admin_action_asks_then_queues_the_job_and_the_task_does_it(
    world: World, archive_dir: Path, admin_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(world)
    form = {"action": "offboard", "_selected_action": [str(world.tenant.pk)]}
    asked = admin_client.post("/admin/tracker/tenant/", form)
    assert asked.status_code == 200
    assert "Yes, offboard" in asked.content.decode()
    assert stored(world.slug)["issues"] == 5  # asking changed nothing

    queued: list[str] = []

    class Queued:
        id = "6f1c0a8e-0000-4000-8000-000000000000"

    monkeypatch.setattr(tasks.offboard_tenant, "delay", lambda slug: queued.append(slug) or Queued())
    started = admin_client.post("/admin/tracker/tenant/", {**form, "confirmed": "yes"})
    assert queued == [world.slug]
    assert started["Location"] == f"/admin/ddb/jobs/{Queued.id}/"

    report = tasks.offboard_tenant.apply(args=[world.slug]).get()  # what the worker runs
    assert report["status"] == "done"
    assert report["result"]["finished"]
    assert all(n == 0 for n in stored(world.slug).values())


def test_only_staff_allowed_to_delete_tenants_get_the_action(world: World) -> None:
    staff = User.objects.create_user("viewer-staff", password="pw-for-tests", is_staff=True)
    client = Client()
    client.force_login(staff)
    page = client.post("/admin/tracker/tenant/", {"action": "offboard", "_selected_action": [str(world.tenant.pk)]})
    assert page.status_code in (302, 403)
    assert not RetiredSlug.objects.filter(slug=world.slug).exists()


def test_running_it_again_on_an_offboarded_tenant_changes_nothing_and_keeps_the_archive(
    world: World, archive_dir: Path
) -> None:
    populate(world)
    first = offboard(world.slug)["result"]
    again = offboard(world.slug)["result"]
    assert again["exported"]["items"] == 0
    assert again["finished"]
    retired = RetiredSlug.objects.get(slug=world.slug)
    assert retired.reason == RetiredSlug.Reason.OFFBOARDED
    assert retired.archive == first["archive"]
    assert retired.report["archives"] == [first["archive"], again["archive"]]
