"""A finished job's page says its answer first (keys as a list, the JSON folded); an import's figures agree."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from ddbmodels.core import connection
from tests.tracker.conftest import World
from tests.tracker.helpers import staff_client, text
from tests.tracker.test_import_pages import Queued, form_data, import_id_of, imports_dir, post, queued, run_task
from tracker import capacity_stats
from tracker.jobs import recent_runs
from tracker.selectors.admin.job_results import job_answer
from tracker.views.admin import jobs as job_views

pytestmark = pytest.mark.ddblocal
__all__ = ["imports_dir", "queued"]  # the fixtures, used by name
KEYS = ["acme#API", "acme#OPS", "acme#WEB", "globex#APP", "globex#DATA", "initech#TPS", "umbrella#LAB"]


def distinct_keys_run() -> dict[str, Any]:
    """What run_job returns for a skip scan of the issues table that found 7 projects."""
    report = {
        "table": "tracker-issues",
        "method": "skip-scan",
        "requested_method": "auto",
        "segments": 1,
        "segment": None,
        "index_name": None,
        "distinct_keys": 7,
        "requests": 9,
        "rcu": 12.5,
        "retries": 0,
        "seconds": 0.812,
        "by_operation": {"Scan": 9},
        "estimates": {"scan": 48.0, "skip-scan": 12.5},
        "collections_estimate": 7.0,
        "collections_source": "probe",
        "probe": None,
        "reason": "skip scan reads one item a collection: cheaper than the scan",
    }
    return {
        "job": "distinct_keys:tracker-issues",
        "run_id": "r1",
        "token": 3,
        "status": "done",
        "seconds": 0.9,
        "capacity": {"rcu": 13.0, "wcu": 1.0, "requests": 11, "by_operation": {"Scan": 9}, "by_pattern": {}},
        "result": {"report": report, "sample": KEYS},
    }


def show(monkeypatch: pytest.MonkeyPatch, run: dict[str, Any]) -> str:
    """The job page of a run that finished with ``run`` (the result backend's answer, as the page reads it)."""
    task_id = uuid.uuid4()
    status = {"task_id": str(task_id), "state": "SUCCESS", "ready": True, "result": run}
    monkeypatch.setattr(job_views, "job_status", lambda *, task_id: status)
    monkeypatch.setattr(job_views, "job_task_name", lambda *, task_id: "tracker.tasks.distinct_keys")
    response = staff_client("reader").get(f"/admin/ddb/jobs/{task_id}/")
    assert response.status_code == 200
    return text(response)


def test_the_distinct_keys_page_says_the_answer_first_and_lists_the_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    page = show(monkeypatch, distinct_keys_run())
    answer = "7 distinct partition keys in tracker-issues found by skip scan, 12.5 RCU, 0.812 s"
    assert answer in page
    assert page.index(answer) < page.index("Capacity consumed") < page.index("<details")
    keys = re.search(r'<ul id="job-items"[^>]*>(.*?)</ul>', page, re.S)
    assert keys is not None
    assert re.findall(r"<li><code>([^<]+)</code></li>", keys.group(1)) == KEYS
    assert "The keys (all 7)" in page
    # the JSON is still there for whoever needs it, folded
    folded = page.split("<details", 1)[1].split("</details>", 1)[0]
    assert "&quot;distinct_keys&quot;: 7" in folded
    main = page.split('<div id="content-main"', 1)[1].split("<script", 1)[0]
    assert main.count("<div") + 1 == main.count("</div>")  # its own divs closed, and itself: nothing more


def test_the_issues_tables_keys_are_called_projects() -> None:
    run = distinct_keys_run()
    run["result"]["report"]["table"] = connection.table_name("issues")
    assert job_answer(run).headline.startswith(
        f"7 projects (distinct partition keys of {connection.table_name('issues')}) found by skip scan, 12.5 RCU"
    )


def test_every_job_gets_a_sentence_and_an_unknown_one_its_figures() -> None:
    archive = {
        "job": "archive_event_tables",
        "status": "done",
        "seconds": 2.0,
        "capacity": {"rcu": 4.0, "wcu": 0.0},
        "result": {"dry_run": False, "tables": [{"table": "tracker-events-2026-07", "action": "archived", "ok": True}]},
    }
    assert job_answer(archive).headline == "1 events table past retention archived, 4 RCU, 0 WCU, 2 s"
    assert job_answer({"job": "x", "status": "skipped", "reason": "another run holds the lock"}).headline == (
        "Skipped: another run holds the lock."
    )
    unknown = job_answer({"job": "new_job", "status": "done", "seconds": 1, "capacity": {}, "result": {"moved": 3}})
    assert unknown.facts == [("Moved", "3")]


def test_an_imports_figures_are_each_labelled_and_agree_with_capacity_and_jobs(
    world: World, imports_dir: Path, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    def pattern_wcu() -> float:
        return next((r.wcu for r in capacity_stats.totals("pattern") if r.label == "issues.import"), 0.0)

    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    before = pattern_wcu()
    run = run_task(world, import_id)
    summary = run["result"]["summary"]
    job = [r for r in capacity_stats.totals("job") if r.label == run["job"]]
    history = [r for r in recent_runs() if r["run_id"] == run["run_id"]]

    # three figures, each what it says: the issues and comments < + the load's progress records < the whole run
    assert summary["wcu"] < summary["load_wcu"] < run["capacity"]["wcu"]
    assert pattern_wcu() - before == summary["load_wcu"]  # Capacity › by access pattern › issues.import
    assert [r.wcu for r in job] == [run["capacity"]["wcu"]]  # Capacity › by job
    assert [r["capacity"]["wcu"] for r in history] == [run["capacity"]["wcu"]]  # Jobs › last runs

    page = show(monkeypatch, run)
    assert f"Import into MOVED: 18 issues and 6 comments saved, {summary['seconds']:g} s" in page
    facts = dict(re.findall(r'<tr><th scope="row">([^<]+)</th><td>([^<]+)</td></tr>', page))
    assert facts["Import writes (issues, their list and search entries, comments)"].startswith(
        f"{summary['wcu']:g} WCU for {summary['items']} of {summary['items']} items (floor {summary['minimum_wcu']})"
    )
    assert facts["With the load&#x27;s progress records (Capacity › by access pattern: issues.import)"] == (
        f"{summary['load_wcu']:g} WCU"
    )
    whole = "Whole job run, with the project, counts and the import&#x27;s record (Capacity › by job; Jobs history)"
    assert facts[whole].startswith(f"{run['capacity']['wcu']:g} WCU")

    # the team's page says it in the team's words
    team_page = text(client.get(world.url(f"imports/{import_id}/")))
    assert "<strong>18</strong> issues and <strong>6</strong> comments saved in MOVED" in team_page
    for jargon in ("write units", "Items written", "WCU", " items"):
        assert jargon not in team_page
