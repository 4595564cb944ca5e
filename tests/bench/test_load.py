"""bench/load.py: the invariant checks catch a gap, a duplicate, a loss; a tiny real run holds them all.

The unit tests hand the checks of ``bench/load_parts/invariants.py`` made-up ledgers and stored
state with one thing wrong each. The last test runs the whole bench for a few seconds — its own
web server, Celery worker and Redis, the session's DynamoDB Local — and reads its report.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ddbmodels.scores import POINTS
from devtools import services

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPT = BENCH / "load.py"


@pytest.fixture(scope="module")
def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_load", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    sys.path.insert(0, str(BENCH))  # as when run as a script: load_parts is beside it
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


@pytest.fixture(scope="module")
def inv(load: ModuleType) -> ModuleType:
    return sys.modules["load_parts.invariants"]


def test_numbers_one_to_max_hold(inv: ModuleType) -> None:
    assert inv.check_numbers({("t", "WEB"): [3, 1, 2], ("t", "API"): []}) == []


def test_a_gap_in_the_numbers_is_named(inv: ModuleType) -> None:
    assert inv.check_numbers({("t", "WEB"): [1, 2, 4, 6]}) == ["t/WEB: gap(s) in 1..6: 3, 5"]


def test_a_number_stored_twice_is_named(inv: ModuleType) -> None:
    assert inv.check_numbers({("t", "WEB"): [1, 2, 2, 3]}) == ["t/WEB: number(s) stored more than once: 2"]


def test_every_create_stored_under_its_number_holds(inv: ModuleType) -> None:
    created = [("t", "WEB", 4, "a x1"), ("t", "WEB", 5, "b x2")]
    assert inv.check_created(created, {("t", "WEB"): {1: "seed", 4: "a x1", 5: "b x2"}}) == []


def test_a_lost_create_is_named(inv: ModuleType) -> None:
    created = [("t", "WEB", 4, "a x1"), ("t", "WEB", 5, "b x2")]
    assert inv.check_created(created, {("t", "WEB"): {4: "a x1", 5: "someone else's"}}) == [
        "created but not stored under its number (lost or overwritten): t/WEB-5"
    ]


def test_a_create_stored_twice_is_named(inv: ModuleType) -> None:
    created = [("t", "WEB", 4, "a x1")]
    assert inv.check_created(created, {("t", "WEB"): {4: "a x1", 7: "a x1"}}) == [
        "created once, stored more than once: t/WEB 'a x1'"
    ]


def test_two_creates_told_one_number_is_named(inv: ModuleType) -> None:
    created = [("t", "WEB", 4, "a x1"), ("t", "WEB", 4, "b x2")]
    failures = inv.check_created(created, {("t", "WEB"): {4: "a x1"}})
    assert failures[0] == "two creates were told the same number: t/WEB-4"
    assert failures[1] == "created but not stored under its number (lost or overwritten): t/WEB-4"


def test_a_form_sent_twice_must_land_where_the_first_did(inv: ModuleType) -> None:
    same = {"label": "create issue", "first": "/t/a/p/WEB/4/", "second": "/t/a/p/WEB/4/", "status": "302"}
    other = {**same, "second": "/t/a/p/WEB/5/"}
    assert inv.check_resubmits([same]) == []
    assert inv.check_resubmits([same, other]) == [
        "a form sent twice did not return its first result: "
        "create issue: first /t/a/p/WEB/4/, again /t/a/p/WEB/5/ (302)"
    ]


def test_comments_lost_or_doubled_are_named(inv: ModuleType) -> None:
    posted = {("t", "WEB", 1): 2, ("t", "API", 3): 1}
    assert inv.check_comments(posted, {("t", "WEB", 1): 2, ("t", "API", 3): 1}) == []
    assert inv.check_comments(posted, {("t", "WEB", 1): 3}) == [
        "comments lost or doubled: t/API-3: posted 1, stored 0, t/WEB-1: posted 2, stored 3"
    ]


def test_orders_unique_and_present(inv: ModuleType) -> None:
    placed = [("a", 1, "seats", 2), ("b", 2, "storage", 5)]
    assert inv.check_orders(placed, {"a": [(1, "seats", 2)], "b": [(2, "storage", 5)]}) == []
    assert inv.check_orders([*placed, ("b", 1, "seats", 1)], {"a": [(1, "seats", 2)], "b": [(1, "seats", 1)]}) == [
        "order number(s) told to two orders: 1",
        "order number(s) stored twice: 1",
        "placed but not stored as ordered: b #2",
    ]


def test_leaderboard_totals_must_equal_the_awards(inv: ModuleType) -> None:
    awarded = {("a", "u1"): 5, ("a", "u2"): 3}
    assert inv.check_scores(awarded, {("a", "u1"): 5, ("a", "u2"): 3}) == []
    assert inv.check_scores(awarded, {("a", "u1"): 5, ("a", "u3"): 2}) == [
        "leaderboard totals differ from the awards made: a u2: awarded 3, board 0, a u3: awarded 0, board 2"
    ]


def test_attachments_in_the_state_their_flow_left_them(inv: ModuleType) -> None:
    made = [
        {"id": "A1", "state": "Attached", "size": 10, "sha256": "x"},
        {"id": "A2", "state": "Detached", "size": 20, "sha256": "y"},
    ]
    good = {
        "A1": {"state": "Attached", "size": 10, "sha256": "x"},
        "A2": {"state": "Detached", "size": 20, "sha256": "y"},
    }
    assert inv.check_attachments(made, good, in_flight=["OTHER"]) == []
    bad = {**good, "A2": {"state": "Detaching", "size": 20, "sha256": "y"}}
    assert inv.check_attachments(made, bad, in_flight=["A2"]) == [
        "attachments not as their flow left them: A2 Detaching, expected Detached",
        "attachments still in flight: A2",
    ]


def test_jobs_must_finish_and_the_backfill_see_every_project(inv: ModuleType) -> None:
    done = {"status": "done", "result": {"collections": 6, "refreshed": 6}}
    backfill = {"job": "backfill_project_counts", "state": "SUCCESS", "started_at": 2.0, "result": done}
    assert inv.check_jobs([backfill], projects=6, load_seconds=10) == []
    assert inv.check_jobs([], projects=6, load_seconds=10) == ["no maintenance job ran"]
    assert inv.check_jobs([{**backfill, "state": "FAILURE", "error": "boom"}], projects=6, load_seconds=10) == [
        "job backfill_project_counts did not finish: FAILURE boom"
    ]
    assert inv.check_jobs([backfill], projects=9, load_seconds=10) == ["backfill saw 6 and refreshed 6 of 9 projects"]


def test_zipf_weights_fall_as_one_over_rank_to_the_s(load: ModuleType) -> None:
    ledger, users = sys.modules["load_parts.ledger"], sys.modules["load_parts.users"]
    assert ledger.zipf_weights(3, 1.0) == pytest.approx([6 / 11, 3 / 11, 2 / 11])
    assert ledger.zipf_weights(2, 0.0) == [0.5, 0.5]
    assert users.POINTS == POINTS  # the points the ledger expects are the app's


def test_percentiles_are_nearest_rank(load: ModuleType) -> None:
    report = sys.modules["load_parts.figures"]
    values = [float(n) for n in range(1, 101)]
    assert (report.percentile(values, 50), report.percentile(values, 99), report.percentile([], 50)) == (
        50.0,
        99.0,
        0.0,
    )


def test_the_form_reader_keeps_hidden_fields_and_finds_the_form_by_its_action(load: ModuleType) -> None:
    client = sys.modules["load_parts.client"]
    html = (
        '<form action="/accounts/logout/" method="post">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="t0"></form>'
        '<form method="post"><input type="hidden" name="csrfmiddlewaretoken" value="t1">'
        '<input type="hidden" name="idempotency_key" value="01K:sig"><input type="checkbox" name="x">'
        '<button type="submit" name="to" value="resolved">Resolve</button></form>'
    )
    form = client.form_posting_to(html, "/t/a/p/WEB/new/")
    assert form.fields == {"csrfmiddlewaretoken": "t1", "idempotency_key": "01K:sig"}
    assert form.buttons == [("to", "resolved")]
    assert client.form_ending(html, "/logout/").fields == {"csrfmiddlewaretoken": "t0"}


def test_a_derived_table_whose_hottest_key_takes_over_a_quarter_of_its_writes_fails_the_spread_check(
    load: ModuleType,
) -> None:
    figures = sys.modules["load_parts.figures"]
    rows = [
        {"table": "labels", "key": "t#bug", "share": 0.2},
        {"table": "idempotency_keys", "key": "t#issue#WEB#k", "share": 0.01},
        {"table": "issues", "key": "t#WEB", "share": 0.9},  # one key by design: not checked
    ]
    assert figures.check_spread(rows) == []
    rows[0].update(share=0.81, wcu=400)  # the old terms table: every label entry of a team under the team's key
    assert figures.check_spread(rows) == ["labels: key t#bug took 81.0 % of the table's writes (at most 25 %)"]
    rows[0]["wcu"] = 6  # a handful of writes (a tiny run): too few to judge a share
    assert figures.check_spread(rows) == []
    assert set(figures.ONE_KEY_BY_DESIGN) == {"issues", "counters"}


def test_an_endpoint_off_this_machine_is_refused_before_anything_starts(tmp_path: Path) -> None:
    env = {**os.environ, "DYNAMODB_ENDPOINT_URL": "http://10.1.2.3:8000"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "not on this machine; bench/load.py drives 127.0.0.1 only" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_tiny_run_holds_every_invariant_and_reports_its_figures(
    dynamodb_local: services.Service, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "REDIS_", "CELERY_"))}
    env.update({"DYNAMODB_ENDPOINT_URL": dynamodb_local.url, "DYNAMODB_TABLE_PREFIX": "test-load-"})
    command = [sys.executable, str(SCRIPT), "--seconds", "4", "--users", "4", "--hot-writers", "2", "--teams", "2"]
    command += ["--seed-issues", "5", "--out", str(tmp_path), "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True
    assert {name for name, c in summary["invariants"].items() if c["failures"]} == set()
    assert summary["server_errors"] == 0
    assert {name: e["count"] for name, e in summary["log_errors"].items()} == {"web": 0, "worker": 0}
    assert summary["made"]["hot_issues"] > 0
    assert summary["invariants"]["every create stored once"]["checked"] == summary["made"]["issues"]
    assert [job["job"] for job in summary["jobs"]] == ["backfill_project_counts", "reconcile"]
    labels = {row["label"] for row in summary["pages"]}
    assert {"create issue", "new issue form", "log in"} <= labels
    for row in summary["pages"]:
        assert set(row) == {"label", "count", "p50_ms", "p99_ms", "max_ms", "errors"}
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    pages = {row["label"]: row for row in summary["capacity_by_page"]}
    assert pages["issue_create"]["wcu"] > 0  # the server's own meter, read back from its Redis
    hottest = summary["hot_keys"][0]  # the server's hot keys, read back from its Redis
    assert hottest["table_requests"] >= hottest["requests"] > 0
    shares = {row["table"]: row for row in summary["write_shares"]}  # each table's hottest key by writes
    assert {"issues", "idempotency_keys"} <= set(shares)  # labels too when a labelled issue was filed
    assert shares["issues"]["note"].startswith("a project's own collection")  # one key by design, and said so
    assert summary["invariants"]["label and idempotency keys spread"]["checked"] == len(summary["write_shares"])
    assert json.loads((tmp_path / "load.json").read_text())["invariants"] == summary["invariants"]
    assert "## Invariants" in (tmp_path / "load.md").read_text()
    assert (tmp_path / "load-web.log").exists()
    assert (tmp_path / "load-worker.log").exists()
    left = services_tables(dynamodb_local.url, summary["table_prefix"])
    assert left == []  # its tables dropped


def services_tables(endpoint: str, prefix: str) -> list[str]:
    import boto3

    client = boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    names: list[str] = []
    for page in client.get_paginator("list_tables").paginate():
        names += [name for name in page["TableNames"] if name.startswith(prefix)]
    return names
