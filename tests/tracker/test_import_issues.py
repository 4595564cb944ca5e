"""import_issues: three GitHub exports (pull requests among them) in one command, on DynamoDB Local."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels.core import batch, capacity
from ddbmodels.core.errors import AlreadyExists
from tests.tracker.conftest import World
from tracker.forms.idempotency import new_idempotency_key
from tracker.imports import parse
from tracker.search.queries import search_page

pytestmark = pytest.mark.ddblocal
BASE = datetime(2026, 3, 1, tzinfo=UTC)
KEYS = ("ALPHA", "BETA", "GAMMA")
BUDGET = 150.0


def github_export(count: int, *, offset: int) -> list[dict[str, Any]]:
    """``count`` entries numbered 1…count; every 4th a pull request; issues with labels, people and comments."""
    entries: list[dict[str, Any]] = []
    for n in range(1, count + 1):
        created = BASE + timedelta(hours=n + offset)
        entry: dict[str, Any] = {
            "number": n,
            "title": f"Imported widget {n} needs {['paint', 'glue', 'screws'][n % 3]}",
            "body": f"Body of {n}",
            "state": "closed" if n % 5 == 0 else "open",
            "labels": [{"name": "bug"}] if n % 2 else [{"name": "Good First Issue"}],
            "assignee": {"login": "someone-outside"} if n % 3 == 0 else None,
            "user": {"login": "octocat"},
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "closed_at": (created + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ") if n % 5 == 0 else None,
            "comments": [
                {
                    "user": {"login": "hubot"},
                    "body": f"comment {c}",
                    "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
                for c in range(n % 3)
            ],
        }
        if n % 4 == 0:
            entry["pull_request"] = {"url": f"https://example.invalid/pulls/{n}"}
        entries.append(entry)
    return entries


@pytest.fixture
def exports(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for i, (key, count) in enumerate(zip(KEYS, (22, 18, 14), strict=True)):
        path = tmp_path / f"{key.lower()}.json"
        path.write_text(json.dumps(github_export(count, offset=i * 100)))
        paths[key] = path
    return paths


def run(world: World, exports: dict[str, Path], *extra: str) -> str:
    out = io.StringIO()
    args = [f"{key}={path}" for key, path in exports.items()]
    call_command(
        "import_issues",
        world.slug,
        "--format",
        "github",
        *[a for p in args for a in ("--project", p)],
        *extra,
        stdout=out,
    )
    return out.getvalue()


def expected_numbers(count: int) -> list[int]:
    return [n for n in range(1, count + 1) if n % 4]


Recorder = Callable[[], list[list[batch.Request]]]


@pytest.fixture
def chunks(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Every BatchWriteItem the code sends (what it held), in order."""
    sent: list[list[batch.Request]] = []
    real = batch._send_measured

    def record(chunk: Sequence[batch.Request], backoff: Any) -> float:
        sent.append(list(chunk))
        return real(chunk, backoff)

    monkeypatch.setattr(batch, "_send_measured", record)
    return lambda: sent


def project_of(tenant: str, request: batch.Request) -> str:
    item = request[1]["PutRequest"]["Item"]
    if "pk" in item:  # the issue
        return item["pk"]["S"].split("#")[1]
    if "tn" in item:  # its label/word entries: "…#<PROJECT>#<number>" at the end of the sort key
        return re.split(r"#", item["s"]["S"])[-2]
    return item["s"]["S"].split("#")[1]  # its comments' stream


def test_three_exports_import_in_one_command_interleaved_under_the_budget(
    world: World, exports: dict[str, Path], chunks: Recorder
) -> None:
    began = time.monotonic()
    with capacity.measure() as meter:
        out = run(world, exports, "--max-wcu", str(BUDGET))
    elapsed = time.monotonic() - began

    for key, count in zip(KEYS, (22, 18, 14), strict=True):
        assert ddb_issues.issue_numbers(tenant=world.slug, project_key=key) == expected_numbers(count)
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="ALPHA", number=15)
    assert issue is not None
    assert (issue.title, issue.status, issue.assignee, issue.reporter) == (
        "Imported widget 15 needs paint",
        "closed",
        "someone-outside",
        "octocat",
    )
    assert issue.labels == {"bug"}
    assert issue.created_at == BASE + timedelta(hours=15)
    assert ddb_issues.issue_get(tenant=world.slug, project_key="ALPHA", number=16) is None  # a pull request
    page = ddb_comments.comment_page(stream=ddb_comments.issue_stream(world.slug, "BETA", 14))
    assert [c.body for c in page.comments] == ["comment 0", "comment 1"]

    sent = chunks()
    assert len(sent) >= 5  # 42 issues, their label entries and comments: 25 requests a chunk
    for chunk in sent:  # every chunk that can hold the three projects holds them (the last may be one request)
        assert {project_of(world.slug, r) for r in chunk} == set(KEYS) or len(chunk) < len(KEYS)
    wcu = meter.by_pattern["issues.import"].wcu
    assert wcu > 1.5 * BUDGET  # enough writes for the budget to pace them (over a second and a half)
    assert wcu / elapsed <= BUDGET
    rate = float(re.search(r"([0-9.]+) WCU/s under a budget of 150 WCU/s", out)[1])  # type: ignore[index]
    assert rate <= BUDGET
    assert re.search(r"WCU against a minimum of \d+", out)


def test_the_next_issue_after_an_import_gets_the_highest_number_plus_one(
    world: World, exports: dict[str, Path]
) -> None:
    run(world, exports)
    created = ddb_issues.issue_create(tenant=world.slug, project_key="ALPHA", title="New after import", reporter="x")
    assert created.number == 23  # numbers 1…22, pull requests 4, 8 … 20 skipped: 22 is the highest
    assert ddb_issues.issue_create(tenant=world.slug, project_key="GAMMA", title="Next", reporter="x").number == 15


def test_a_rerun_writes_nothing_and_a_restart_adds_nothing(
    world: World, exports: dict[str, Path], chunks: Recorder
) -> None:
    run(world, exports)
    first = len(chunks())
    out = run(world, exports)
    assert "nothing written" in out
    assert len(chunks()) == first
    run(world, exports, "--restart")
    assert len(chunks()) == 2 * first
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="BETA") == expected_numbers(18)
    page = ddb_comments.comment_page(stream=ddb_comments.issue_stream(world.slug, "BETA", 14))
    assert len(page.comments) == 2


def test_a_killed_run_resumes_after_its_last_written_chunk(
    world: World, exports: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = batch._send_measured
    sent: list[int] = []

    def dies_after_three(chunk: Sequence[batch.Request], backoff: Any) -> float:
        if len(sent) == 3:
            raise KeyboardInterrupt
        sent.append(len(chunk))
        return real(chunk, backoff)

    monkeypatch.setattr(batch, "_send_measured", dies_after_three)
    with pytest.raises(KeyboardInterrupt):
        run(world, exports)
    monkeypatch.setattr(batch, "_send_measured", real)
    out = run(world, exports)
    assert "(resumed after 75)" in out
    for key, count in zip(KEYS, (22, 18, 14), strict=True):
        assert ddb_issues.issue_numbers(tenant=world.slug, project_key=key) == expected_numbers(count)


def test_lists_labels_and_search_find_imported_issues(world: World, exports: dict[str, Path]) -> None:
    run(world, exports)
    open_alpha = ddb_issues.status_list(tenant=world.slug, status="open", project_key="ALPHA", size=50)
    assert sorted(int(i.number) for i in open_alpha.issues) == [n for n in expected_numbers(22) if n % 5]
    mine = ddb_issues.status_list(tenant=world.slug, status="open", assignee="someone-outside", size=50)
    assert {i.reference for i in mine.issues} >= {"ALPHA-3", "BETA-6", "GAMMA-9"}
    labelled = ddb_issues.label_list(tenant=world.slug, label="good-first-issue", status="open", project_key="GAMMA")
    assert sorted(int(i.number) for i in labelled.issues) == [2, 6, 14]
    found = search_page(tenant=world.slug, text="widget glue", project_key="BETA", size=50)  # the search engine's
    assert sorted(int(i.number) for i in found.issues) == [1, 7, 10, 13]


def test_a_dry_run_reports_and_writes_nothing(world: World, exports: dict[str, Path], chunks: Recorder) -> None:
    out = run(world, exports, "--dry-run")
    assert "ALPHA: 17 issues (numbers up to 22, 5 gaps)" in out
    assert "dry run: nothing written" in out
    assert chunks() == []
    assert ddb_issues.project_get(tenant=world.slug, key="ALPHA") is None


def test_bad_input_is_a_clear_error_and_writes_nothing(world: World, tmp_path: Path, chunks: Recorder) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(CommandError, match="not a github export"):
        run(world, {"ALPHA": bad})
    with pytest.raises(CommandError, match="no team"):
        call_command("import_issues", "no-such-team", "--format", "github", "--project", f"ALPHA={bad}")
    assert chunks() == []
    assert ddb_issues.project_get(tenant=world.slug, key="ALPHA") is None


def test_jira_and_plain_csv_exports_parse_to_the_same_records(tmp_path: Path) -> None:
    jira = tmp_path / "jira.csv"
    jira.write_text(
        "Summary,Issue key,Status,Priority,Assignee,Reporter,Created,Resolved,Description,Labels,Labels,Comment\n"
        'Fix login,WEB-7,Done,Critical,ann,bob,02/Nov/26 9:30 AM,03/Nov/26 1:00 PM,"Multi\nline",auth,urgent,'
        "02/Nov/26 10:00 AM;carl;Looks right\n"
    )
    plain = tmp_path / "plain.csv"
    plain.write_text(
        "number,title,body,state,priority,labels,assignee,reporter,created,closed\n"
        '7,Fix login,"Multi\nline",resolved,high,auth urgent,ann,bob,2026-11-02T09:30:00Z,2026-11-03T13:00:00Z\n'
    )
    (j,) = parse("jira", jira)
    (p,) = parse("csv", plain)
    assert j.comments[0].author == "carl (imported)"  # a name from elsewhere, never an account here (issue 20)
    assert j.comments[0].created == datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    j.comments = []
    assert j == p
    assert (p.number, p.state, p.priority, p.labels, p.closed) == (
        7,
        "resolved",
        "high",
        ["auth", "urgent"],
        datetime(2026, 11, 3, 13, tzinfo=UTC),
    )


@pytest.mark.parametrize("fmt", ["github", "jira", "csv"])
def test_an_export_imports_back_into_a_new_project_the_same(
    world: World, exports: dict[str, Path], tmp_path: Path, fmt: str
) -> None:
    run(world, {"BETA": exports["BETA"]})
    out = tmp_path / f"beta.{fmt}"
    call_command("export_issues", world.slug, "--format", fmt, "--project", "BETA", "--out", str(out))
    call_command("import_issues", world.slug, "--format", fmt, "--project", f"COPY={out}", stdout=io.StringIO())
    original = sorted(parse("github", exports["BETA"]), key=lambda r: r.number)
    copied = sorted(parse(fmt, out), key=lambda r: r.number)
    if fmt == "csv":  # the plain CSV has no comments
        for record in original:
            record.comments = []
    assert [r.number for r in copied] == expected_numbers(18)
    assert copied == original
    for number in expected_numbers(18):
        a = ddb_issues.issue_get(tenant=world.slug, project_key="BETA", number=number)
        b = ddb_issues.issue_get(tenant=world.slug, project_key="COPY", number=number)
        assert a is not None
        assert b is not None
        assert (a.title, a.status, a.priority, a.labels, a.assignee, a.created_at) == (
            b.title,
            b.status,
            b.priority,
            b.labels,
            b.assignee,
            b.created_at,
        )


def test_priorities_of_a_jira_export_are_kept_and_written_back(world: World, tmp_path: Path) -> None:
    jira = tmp_path / "jira.csv"
    jira.write_text(
        "Issue key,Summary,Status,Priority,Reporter,Created\n"
        "OPS-1,Pager storm,In Progress,Blocker,bob,02/Nov/26 9:30 AM\n"
        "OPS-2,Disk alert,To Do,Minor,bob,02/Nov/26 9:40 AM\n"
        "OPS-3,Rotate keys,To Do,,bob,02/Nov/26 9:50 AM\n"
    )
    call_command("import_issues", world.slug, "--format", "jira", "--project", f"OPS={jira}", stdout=io.StringIO())
    stored = [ddb_issues.issue_get(tenant=world.slug, project_key="OPS", number=n) for n in (1, 2, 3)]
    assert [(i.status, i.priority) for i in stored if i is not None] == [
        ("in_progress", "urgent"),
        ("open", "low"),
        ("open", "medium"),
    ]
    for fmt in ("jira", "csv"):
        out = tmp_path / f"ops.{fmt}"
        call_command("export_issues", world.slug, "--format", fmt, "--project", "OPS", "--out", str(out))
        assert [r.priority for r in sorted(parse(fmt, out), key=lambda r: r.number)] == ["urgent", "low", "medium"]


def test_an_existing_project_takes_only_numbers_above_its_own_and_is_open_again_afterwards(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracker.imports import projects as import_projects

    slept: list[float] = []
    monkeypatch.setattr(import_projects.time, "sleep", slept.append)  # the settling wait, recorded
    for title in ("one", "two", "three"):  # WEB-1 … WEB-3, made in the pages' way
        ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title=title, reporter="alice")
    low, high = tmp_path / "low.csv", tmp_path / "high.csv"
    low.write_text("number,title\n2,Would overwrite WEB-2\n9,Fine\n")
    high.write_text("number,title\n4,Four\n9,Nine\n")

    with pytest.raises(CommandError, match="WEB already has issues up to WEB-3 and the export starts at 2"):
        call_command("import_issues", world.slug, "--format", "csv", "--project", f"WEB={low}")
    assert ddb_issues.issue_get(tenant=world.slug, project_key="WEB", number=2).title == "two"  # type: ignore[union-attr]
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="WEB") == [1, 2, 3]
    assert ddb_issues.project_get(tenant=world.slug, key="WEB").importing is None  # type: ignore[union-attr]

    call_command("import_issues", world.slug, "--format", "csv", "--project", f"WEB={high}", stdout=io.StringIO())
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="WEB") == [1, 2, 3, 4, 9]
    # both runs waited out a create in flight before reading WEB's highest number
    assert slept == [import_projects._request_life()] * 2
    assert slept[0] >= 3 * (1.0 + 2.0)  # attempts × (connect + read timeouts) at the defaults
    assert ddb_issues.project_get(tenant=world.slug, key="WEB").importing is None  # type: ignore[union-attr]
    created = ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="after", reporter="alice")
    assert int(created.item.number) == 10


def test_a_project_being_imported_takes_no_new_issues(world: World, tmp_path: Path) -> None:
    from tracker.imports import projects as import_projects

    records = parse("csv", _csv(tmp_path, "number,title\n1,One\n"))
    held = import_projects.hold(tenant=world.slug, job="import_issues:test", projects={"NEW": records}, created_by="t")
    assert [(h.key, h.created) for h in held] == [("NEW", True)]
    client = world.client_for(world.member)

    page = client.get(f"/t/{world.slug}/p/NEW/")
    refused = client.post(
        f"/t/{world.slug}/p/NEW/new/", {"title": "Mine", "priority": "medium", "idempotency_key": new_idempotency_key()}
    )
    with pytest.raises(AlreadyExists, match="NEW is being imported"):
        import_projects.hold(tenant=world.slug, job="import_issues:other", projects={"NEW": records}, created_by="t")

    assert page.status_code == 200
    assert b"data-importing" in page.content
    assert b" data-new-issue href" not in page.content  # no New issue button (the body's shortcut is the team's)
    assert refused.status_code == 409
    assert "Issues are being imported into NEW" in refused.content.decode()
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="NEW") == []

    import_projects.release(tenant=world.slug, job="import_issues:test", keys=["NEW"])
    created = client.post(
        f"/t/{world.slug}/p/NEW/new/", {"title": "Mine", "priority": "medium", "idempotency_key": new_idempotency_key()}
    )
    assert created.status_code == 302
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="NEW") == [1]


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "export.csv"
    path.write_text(text)
    return path


def test_the_hold_is_read_from_the_project_not_from_a_cached_copy(world: World) -> None:
    client = world.client_for(world.member)
    form = {"title": "Mine", "priority": "medium"}
    assert client.get(world.project_url()).status_code == 200  # the project is cached, not importing

    ddb_issues.project_import_start(tenant=world.slug, key="WEB", job="import_issues:elsewhere")  # cache not told
    refused = client.post(world.project_url("new/"), {**form, "idempotency_key": new_idempotency_key()})
    assert refused.status_code == 409
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="WEB") == []

    assert client.get(world.project_url()).status_code == 200  # now cached as importing
    ddb_issues.project_import_finish(tenant=world.slug, key="WEB", job="import_issues:elsewhere")  # cache not told
    created = client.post(world.project_url("new/"), {**form, "idempotency_key": new_idempotency_key()})
    assert created.status_code == 302
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="WEB") == [1]
