"""Search as people use it: what they write is found, fed by one task per change, checked, rebuilt, offboarded.

The search tasks run in the test's process (``indexed``: ``apply_async`` becomes ``apply``), as a
worker would run them: the test database is in memory, per process, so a worker process could not
reach it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kombu.exceptions
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import comments as ddb_comments
from ddbmodels import issues
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue, pager_link, text
from tests.tracker.test_seed_demo import demo_tables  # noqa: F401  (the demo under tables of its own)
from tracker import tasks
from tracker.search import engine, indexing, reader
from tracker.search.models import GONE, SearchDocument

Queued = list[dict[str, Any]]


@pytest.fixture
def queueing(settings: SettingsWrapper) -> None:
    """Recorded changes queue their search indexing (the test settings leave it off)."""
    settings.SEARCH_INDEX_QUEUE = True


@pytest.fixture
def indexed(queueing: None, monkeypatch: pytest.MonkeyPatch) -> Queued:
    """Every queued search task runs at once, here; the list holds what was queued."""
    queued: Queued = []

    def run(*args: Any, kwargs: dict[str, Any], **options: Any) -> None:
        queued.append(kwargs)
        tasks.search_index_change.apply(kwargs=kwargs).get()

    monkeypatch.setattr(tasks.search_index_change, "apply_async", run)
    return queued


def found(world: World, q: str, *, team: bool = False) -> list[str]:
    client = world.client_for(world.viewer)
    response = client.get(world.url("issues/") if team else world.project_url(), {"q": q})
    assert response.status_code == 200, text(response)[:500]
    refs = re.findall(r'href="/t/[^/"]+/p/([A-Z]+)/(\d+)/"', text(response))
    return list(dict.fromkeys(f"{key}-{n}" for key, n in refs))


def documents(world: World) -> dict[str, tuple[int, bool]]:
    return {
        f"{d.project_key}-{d.number}" + (f"/{d.comment_key}" if d.comment_key else ""): (d.version, d.gone)
        for d in SearchDocument.objects.filter(tenant=world.slug)
    }


def test_a_new_issue_and_a_comment_with_a_unique_word_are_found_through_the_pages(
    world: World, indexed: Queued
) -> None:
    member = world.client_for(world.member)
    created = member.post(world.project_url("new/"), {"title": "Kubernetes rollout stalls", "priority": "low"})
    assert created.status_code == 302
    member.post(
        world.project_url("new/"), {"title": "Unrelated chore", "description": "tidy the wiki", "priority": "low"}
    )
    assert member.post(world.project_url("2/comments/"), {"body": "Saw quokkaflux in the logs"}).status_code == 302
    assert found(world, "kube") == ["WEB-1"]  # a 4-letter prefix of a title word
    assert found(world, "quokkaflux") == ["WEB-2"]  # a word only in a comment
    assert found(world, "logs quokk", team=True) == ["WEB-2"]  # any order, prefixes, the team's list
    assert found(world, "wiki") == ["WEB-2"]  # the description
    assert found(world, "nothing-like-it") == []
    assert {"tenant": world.slug, "project_key": "WEB", "number": 1} in indexed


def test_the_search_page_costs_one_dynamodb_request_besides_the_engine(world: World, indexed: Queued) -> None:
    member = world.client_for(world.member)
    for title in ("Deploy fails", "Deploy docs", "Cache warmup"):
        member.post(world.project_url("new/"), {"title": title, "priority": "low"})
    response = world.client_for(world.viewer).get(world.project_url(), {"q": "deplo"})
    meter = response.wsgi_request.ddb_capacity  # type: ignore[attr-defined]
    search = meter.by_pattern["issues.get_many"]
    assert (search.requests, search.rcu) == (1, 1.0)  # one BatchGetItem: 0.5 RCU a row shown
    assert "issues.search" not in meter.by_pattern  # the old word entries are not read


def test_edits_status_changes_and_deletions_reach_the_index_and_the_filters_apply(
    world: World, indexed: Queued
) -> None:
    member = world.client_for(world.member)
    member.post(world.project_url("new/"), {"title": "Printer jams", "labels": "bug", "priority": "low"})
    member.post(world.project_url("1/comments/"), {"body": "the zebrafish tray again"})
    comment = ddb_comments.comment_page(stream=ddb_comments.issue_stream(world.slug, "WEB", 1)).comments[0]
    assert found(world, "is:open label:bug zebra") == ["WEB-1"]
    issue = load(world, 1)
    assert issue is not None
    member.post(world.project_url("1/status/"), {"to": "closed", "version": int(issue.version)})
    assert load(world, 1).status == "closed"  # type: ignore[union-attr]
    assert found(world, "is:open zebra") == []
    assert found(world, "is:closed zebra") == ["WEB-1"]
    edit = world.project_url(f"1/comments/{ddb_comments.comment_id(comment.key)}/")
    assert member.post(edit + "edit/", {"body": "the usual tray", "version": 1}).status_code == 302
    assert found(world, "zebra") == []
    assert found(world, "usual") == ["WEB-1"]
    assert member.post(edit + "delete/", {"version": 2}).status_code == 302
    assert found(world, "usual") == []
    assert documents(world)[f"WEB-1/{comment.key}"] == (GONE, True)


def test_a_task_run_twice_or_late_changes_nothing(world: World) -> None:
    first = new_issue(world, "Alpha title")
    assert indexing.index_issue_item(first) == "created"
    issues.issue_update(first, title="Beta title", description="", priority="low", assignee=None, labels=[])
    assert indexing.index_change(tenant=world.slug, project_key="WEB", number=1) == "updated"
    assert indexing.index_change(tenant=world.slug, project_key="WEB", number=1) == "unchanged"  # twice
    assert indexing.index_issue_item(first) == "unchanged"  # a late task that read version 1
    assert SearchDocument.objects.get(tenant=world.slug, comment_key="").title == "Beta title"
    # A comment deleted before a late "added" task ran: it stays out of the index.
    added = ddb_comments.comment_add(
        tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body="late words"
    ).comment
    ddb_comments.comment_delete(added, by=world.member.username)
    assert indexing.index_change(tenant=world.slug, project_key="WEB", number=1, comment_key=added.key) == "removed"
    assert indexing.index_comment_item(world.slug, "WEB", 1, added) == "unchanged"
    assert documents(world)[f"WEB-1/{added.key}"] == (GONE, True)


def test_a_tombstoned_issue_leaves_the_index_with_its_comments(world: World, indexed: Queued) -> None:
    member = world.client_for(world.member)
    member.post(world.project_url("new/"), {"title": "Walrus migration", "priority": "low"})
    member.post(world.project_url("1/comments/"), {"body": "walrus notes"})
    assert found(world, "walrus") == ["WEB-1"]
    issue = load(world, 1)
    assert issue is not None
    issues.issue_tombstone(issue, by=world.owner.username)
    indexing.index_change(tenant=world.slug, project_key="WEB", number=1)
    assert found(world, "walrus") == []
    assert all(gone for _, gone in documents(world).values())


def test_with_the_broker_down_the_change_stands_and_check_fix_finds_it(
    world: World, queueing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: Any, **kwargs: Any) -> None:
        raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.search_index_change, "apply_async", down)
    member = world.client_for(world.member)
    assert member.post(world.project_url("new/"), {"title": "Narwhal outage", "priority": "low"}).status_code == 302
    assert load(world, 1) is not None  # the change stands
    assert found(world, "narwhal") == []
    out = io.StringIO()
    with pytest.raises(CommandError, match="out of step"):
        call_command("search_index", "check", "--tenant", world.slug, stdout=out)
    assert f"{world.slug}: 1 missing: WEB-1" in out.getvalue()
    call_command("search_index", "check", "--tenant", world.slug, "--fix", stdout=out)
    assert found(world, "narwhal") == ["WEB-1"]
    call_command("search_index", "check", "--tenant", world.slug, stdout=out)
    assert out.getvalue().rstrip().endswith("consistent (1 RCU).")


def test_check_reports_stale_and_extra_documents_and_fixes_them(world: World) -> None:
    one, two = new_issue(world, "One"), new_issue(world, "Two")
    indexing.index_issue_item(one)
    indexing.index_issue_item(two)
    SearchDocument.objects.filter(tenant=world.slug, number=1).update(version=0, title="Old")
    SearchDocument.objects.create(
        tenant=world.slug, project_key="WEB", number=9, scope="x", title="ghost", version=1, updated=one.updated_at
    )
    report = indexing.check(tenant=world.slug)
    assert (report.missing, report.stale, report.extra) == ([], ["WEB-1"], ["WEB-9"])
    fixed = indexing.check(tenant=world.slug, fix=True)
    assert fixed.fixed == 2
    assert indexing.check(tenant=world.slug).consistent
    assert SearchDocument.objects.get(tenant=world.slug, number=1).title == "One"


def test_a_check_fix_never_revives_a_deleted_comment_from_a_page_read_a_moment_old(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_issue(world, "Quiet issue")
    added = ddb_comments.comment_add(
        tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body="wombat sighting"
    ).comment
    indexing.index_change(tenant=world.slug, project_key="WEB", number=1)
    ddb_comments.comment_delete(added, by=world.member.username)
    assert indexing.index_change(tenant=world.slug, project_key="WEB", number=1, comment_key=added.key) == "removed"
    # the check's page of comments is eventually consistent: it may still show the deleted comment
    monkeypatch.setattr(reader.Reader, "comments", lambda self, tenant, key, number: [added])

    indexing.check(tenant=world.slug, fix=True)

    assert documents(world)[f"WEB-1/{added.key}"] == (GONE, True)  # still gone: the fix read it again
    assert found(world, "wombat") == []


def test_a_rebuild_killed_after_a_page_resumes_from_its_checkpoint(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "ISSUE_PAGE", 2)
    for n in range(1, 6):
        new_issue(world, f"Heron {n}")
    ddb_comments.comment_add(tenant=world.slug, project_key="WEB", number=4, author="x", body="egret")
    saved: list[dict[str, Any]] = []
    real_save = indexing.IndexCheckpoint.save

    def save_then_die(self: Any, *args: Any, **kwargs: Any) -> None:
        real_save(self, *args, **kwargs)
        if not self.data:  # made empty by get_or_create
            return
        saved.append(dict(self.data))
        if len(saved) == 1:
            raise KeyboardInterrupt  # killed right after its first page

    monkeypatch.setattr(indexing.IndexCheckpoint, "save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        call_command("search_index", "rebuild", "--tenant", world.slug, stdout=io.StringIO())
    assert saved == [{"done": [], "project": "WEB", "after": 2}]
    assert sorted(documents(world)) == ["WEB-1", "WEB-2"]
    out = io.StringIO()
    call_command("search_index", "rebuild", "--tenant", world.slug, stdout=out)
    assert f"{world.slug}/WEB: up to #4" in out.getvalue()
    assert f"{world.slug}/WEB: up to #2" not in out.getvalue()  # resumed after the first page
    assert '"issues": 3' in out.getvalue()
    assert len(documents(world)) == 6
    assert indexing.check(tenant=world.slug).consistent
    assert not indexing.IndexCheckpoint.objects.filter(name__startswith=f"rebuild:{world.slug}").exists()


def test_offboarding_removes_the_team_from_the_search_index(
    world: World, other_world: World, archive_dir: Path, indexed: Queued
) -> None:
    for w in (world, other_world):
        w.client_for(w.member).post(w.project_url("new/"), {"title": "Ocelot survey", "priority": "low"})
        w.client_for(w.member).post(w.project_url("1/comments/"), {"body": "ocelot sighting"})
    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    assert '"search_documents_deleted": 2' in out.getvalue()
    assert not SearchDocument.objects.filter(tenant=world.slug).exists()
    assert found(other_world, "ocelot") == ["WEB-1"]


def test_a_tenant_with_documents_left_may_not_be_deleted(make_world: Callable[..., World]) -> None:
    world = make_world(with_project=False)
    SearchDocument.objects.create(
        tenant=world.slug, project_key="WEB", number=1, scope="x", title="left", version=1, updated="2026-01-01T00:00Z"
    )
    assert "search index still holds documents" in (world.tenant.data_left() or "")
    indexing.remove_tenant(world.slug)
    assert world.tenant.data_left() is None


def test_the_demo_loader_builds_the_demo_search_index(demo_tables: str) -> None:  # noqa: F811  (the fixture)
    call_command("seed_demo", stdout=io.StringIO())
    team = engine.Filters(tenant="acme")
    found = {f"{k}-{n}" for k, n in engine.search(engine.query_words("postmess"), team, limit=50)}
    assert found  # a word only in the first comment of an issue
    assert all(ref.startswith("WEB-") for ref in found)
    assert engine.search(engine.query_words("milton stapler"), engine.Filters(tenant="initech"), limit=5)
    assert not engine.search(engine.query_words("milton"), team, limit=5)  # another team's words
    SearchDocument.objects.filter(tenant="globex").delete()  # as before the index existed
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    assert "globex: search index built" in out.getvalue()
    assert engine.search(engine.query_words("pendingint"), engine.Filters(tenant="globex"), limit=5)


@pytest.mark.parametrize(
    "q", ['"deploy', "(deploy) AND", "deploy* -thing", "(deploy,", "deploy:a", "%_\\", "😀", "OR NOT"]
)
def test_punctuation_in_the_box_is_a_search_not_an_error_page(world: World, indexed: Queued, q: str) -> None:
    world.client_for(world.member).post(world.project_url("new/"), {"title": "Deploy a thing", "priority": "low"})
    # every word counts, operators of the engine too ("AND" is a word the title lacks)
    expected = ["WEB-1"] if "deploy" in q and "AND" not in q else []
    assert found(world, q) == expected  # a 200 page (found() checks it), never a 400


def test_a_search_pages_through_its_results_with_a_signed_cursor(world: World) -> None:
    for n in range(1, 31):
        new_issue(world, f"Flamingo report {n}")
    indexing.rebuild(tenant=world.slug)
    client = world.client_for(world.viewer)
    first = client.get(world.project_url(), {"q": "flamin"})
    shown = found(world, "flamin")
    assert len(shown) == 25
    next_link = pager_link(first, "next")
    assert next_link is not None
    second = client.get(world.project_url() + next_link)
    rest = list(dict.fromkeys(re.findall(r'href="/t/[^/"]+/p/WEB/(\d+)/"', text(second))))
    assert sorted([int(n) for n in rest] + [int(r.split("-")[1]) for r in shown]) == list(range(1, 31))
    assert pager_link(second, "next") is None
    tampered = client.get(world.project_url(), {"q": "flamin", "cursor": next_link.split("cursor=")[1][:-3] + "xyz"})
    assert tampered.status_code == 400
    other_list = client.get(world.project_url(), {"q": "report", "cursor": next_link.split("cursor=")[1]})
    assert other_list.status_code == 400  # a cursor of another search


def test_a_rebuild_reads_dynamodb_outside_its_database_transactions(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its transactions hold SQLite's write lock: a page of DynamoDB reads inside one made the site's writes wait
    from django.db import connection as db

    issue = new_issue(world, "Lock holder")
    ddb_comments.comment_add(tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body="hi")
    real = reader.Reader.comments
    depth: list[int] = []  # savepoints open when DynamoDB is read (the test itself runs in a transaction)

    def comments(self: reader.Reader, tenant: str, key: str, number: int) -> Any:
        depth.append(len(db.savepoint_ids))
        return real(self, tenant, key, number)

    monkeypatch.setattr(reader.Reader, "comments", comments)
    outside = len(db.savepoint_ids)
    report = indexing.rebuild(tenant=world.slug)
    assert (report["issues"], report["comments"]) == (1, 1)
    assert depth == [outside]
    assert issue.title == "Lock holder"
