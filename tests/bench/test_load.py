"""bench/load.py: the checker catches each breakage, both ways; its quick run makes every kind and holds them all.

The unit tests hand the checks of ``bench/load_parts/invariants.py`` (through ``checks.stored_results``)
a made-up ledger and a ``Stored`` built by hand, in agreement, then with one thing wrong each: the
failure must name it. The last test runs the whole bench with ``--quick`` — its own web server,
Celery worker and Redis, the session's DynamoDB Local — and reads its report: every invariant held,
and every kind (creates, busy creates, comments, orders, attachments, notifications …) was checked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


def test_a_form_sent_twice_must_land_where_the_first_did(inv: ModuleType) -> None:
    same = {"label": "create issue", "first": "/t/a/p/WEB/4/", "second": "/t/a/p/WEB/4/", "status": "302"}
    other = {**same, "second": "/t/a/p/WEB/5/"}
    assert inv.check_resubmits([same]) == []
    assert inv.check_resubmits([same, other]) == [
        "a form sent twice did not return its first result: "
        "create issue: first /t/a/p/WEB/4/, again /t/a/p/WEB/5/ (302)"
    ]


def test_leaderboard_totals_must_equal_the_awards(inv: ModuleType) -> None:
    awarded = {("a", "u1"): 5, ("a", "u2"): 3}
    assert inv.check_scores(awarded, {("a", "u1"): 5, ("a", "u2"): 3}) == []
    assert inv.check_scores(awarded, {("a", "u1"): 5, ("a", "u3"): 2}) == [
        "leaderboard totals differ from the awards made: a u2: awarded 3, board 0, a u3: awarded 0, board 2"
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


# ---------------------------------------------------------------------------- both ways: a world, then one breakage
#
# ``world`` is a finished load in miniature, told and stored alike: team t, project WEB with two seeded
# issues; u1 created WEB-3 (label bug) and resolved it, attached a file to it and placed order #1; u2
# commented on WEB-3, so u1 (its reporter, watching) has one unread notification. Every check holds;
# each test below breaks one thing and the checker must name it.

E1, E2, E3, E4 = (f"2026-11-25T20:00:0{n}.000Z#0000000{n}" for n in range(1, 5))
BODY = "Seen it too, @u2 here (login, c01x0001)."
BUSY_TITLE = "Login fails on Safari h00x0002 zz-throttled"


@pytest.fixture
def stored_mod(load: ModuleType) -> ModuleType:
    return sys.modules["load_parts.stored"]


@pytest.fixture
def world(load: ModuleType, stored_mod: ModuleType) -> tuple[Any, Any, Any]:
    """(load, layout, stored): what the users were told and what is stored, in agreement."""
    ledger_mod, teams = sys.modules["load_parts.ledger"], sys.modules["load_parts.teams"]
    client = sys.modules["load_parts.client"]
    st = stored_mod
    layout = teams.Layout(
        teams=["t"], projects={"t": ["WEB"]}, seeded={("t", "WEB"): 2}, users=["u1", "u2"], staff="op", password="x"
    )
    ledger = ledger_mod.Ledger()
    ledger.add_issue(ledger_mod.CreatedIssue("t", "WEB", 3, "Export breaks m00x0001", "u1", "high", frozenset({"bug"})))
    ledger.issues[0].status = "resolved"
    ledger.status_changes.append(("t", "WEB", 3, "resolved"))
    ledger.awards[("t", "u1")] += 3
    ledger.comment_bodies.append((("t", "WEB", 3), BODY))
    ledger.comments[("t", "WEB", 3)] += 1
    ledger.orders.append(("t", 1, "seats", 2))
    ledger.attachments.append(
        {"team": "t", "project": "WEB", "number": 3, "id": "A1", "size": 10, "sha256": "x", "state": "Attached"}
    )
    ledger.busy_creates.append(ledger_mod.BusyCreate("t", "WEB", BUSY_TITLE, "01BUSY"))
    told = ledger_mod.Load("http://x", layout, client.Recorder(), ledger, 1.0, 13, 10.0)
    issues = {
        ("t", "WEB", 1): st.StoredIssue("Sync is slow", "open", "low", "u1", "u2", frozenset({"ui"}), 1),
        ("t", "WEB", 2): st.StoredIssue("Login fails", "closed", "medium", "", "u1", frozenset(), 1),
        ("t", "WEB", 3): st.StoredIssue(
            "Export breaks m00x0001", "resolved", "high", "u1", "u1", frozenset({"bug"}), 2, "Made by the load test."
        ),
    }
    stored = st.Stored(
        issues=issues,
        projects={("t", "WEB"): {"open": 1, "in_progress": 0, "resolved": 1, "closed": 1}},
        labels=[
            st.LabelEntry("t", "ui", "open", "WEB", 1, 1, "Sync is slow"),
            st.LabelEntry("t", "bug", "resolved", "WEB", 3, 2, "Export breaks m00x0001"),
        ],
        registry={"t": {"ui", "bug", "docs"}},  # a label once used and no more: the registry may hold it
        orders=[("t", 1, "seats", 2)],
        counters={"orders": 1},
        attachments={"A1": st.Attachment(("t", "WEB", 3), "A1", "Attached", 10, "x", False)},
        comments=[st.Comment(("t", "WEB", 3), "K1", "u2", BODY, 1)],
        events=[
            st.Event("t#WEB#3", E1, "issue.created", "u1"),
            st.Event("t#WEB#3", E2, "attachment.added", "u1"),
            st.Event("t#WEB#3", E3, "comment.added", "u2"),
            st.Event("t#WEB#3", E4, "issue.status", "u1"),
        ],
        watchers={("t#WEB#3", "u1"), ("t#WEB#3", "u2")},
        heads={("t", "u1"): st.Head(1, ""), ("t", "u2"): st.Head(0, "")},
        notifications=[
            st.Notification("t", "u1", E3, "WEB", 3, "u2", "comment.added", False),
            st.Notification("t", "u2", E4, "WEB", 3, "u1", "issue.status", True),  # opened: read
        ],
        idempotency_keys={"t#issue#WEB#01FIRST", "t#order#01ORDER"},
        scores={("t", "u1"): 3},
        documents=[
            st.Document("t", "WEB", 1, "", "Sync is slow", "", "open", " ui ", "u1", 1, False),
            st.Document("t", "WEB", 2, "", "Login fails", "", "closed", "", "", 1, False),
            st.Document(
                "t",
                "WEB",
                3,
                "",
                "Export breaks m00x0001",
                "Made by the load test.",
                "resolved",
                " bug ",
                "u1",
                2,
                False,
            ),
            st.Document("t", "WEB", 3, "K1", "", BODY, "", "", "", 1, False),
            st.Document("t", "WEB", 2, "K0", "", "", "", "", "", 2**62, True),  # a deleted comment's: gone
        ],
    )
    return told, layout, stored


def failing(world: tuple[Any, Any, Any]) -> dict[str, list[str]]:
    """The checks of what is stored that failed, with their failures."""
    checks = sys.modules["load_parts.checks"]
    return {name: f for name, f in checks.stored_results(*world).items() if f}


def test_a_world_stored_as_told_passes_every_check(world: tuple[Any, Any, Any]) -> None:
    checks = sys.modules["load_parts.checks"]
    assert failing(world) == {}
    assert set(checks.stored_results(*world)) == set(checks.STORED_CHECKS)


def test_an_order_stored_but_never_told_is_caught(world: tuple[Any, Any, Any]) -> None:
    world[2].orders.append(("t", 2, "storage", 5))
    world[2].counters["orders"] = 2
    assert failing(world) == {"orders stored as told, none untold": ["order(s) stored that no user was told of: t #2"]}


def test_a_duplicated_order_is_caught(world: tuple[Any, Any, Any]) -> None:
    world[2].orders.append(("t", 1, "seats", 2))  # the same order twice (under another time key)
    assert failing(world) == {"orders stored as told, none untold": ["order number(s) stored twice: 1"]}


def test_a_told_order_missing_and_a_counter_behind_are_caught(world: tuple[Any, Any, Any]) -> None:
    world[2].orders.clear()
    world[0].ledger.orders.append(("t", 4, "seats", 1))
    world[2].orders.append(("t", 4, "seats", 1))
    assert failing(world) == {
        "orders stored as told, none untold": [
            "placed but not stored as ordered: t #1",
            "order counter at 1, below the highest order #4",
        ]
    }


def test_a_missing_told_comment_is_caught(world: tuple[Any, Any, Any]) -> None:
    world[2].comments.clear()
    found = failing(world)
    assert found["comments stored as told, none untold"] == [f"comment(s) told posted but not stored: t/WEB-3 {BODY!r}"]
    assert found["search documents equal the items"] == ["search document(s) with no item: t/WEB-3 comment K1"]


def test_a_comment_stored_twice_or_never_told_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].comments.append(stored_mod.Comment(("t", "WEB", 3), "K2", "u2", BODY, 1))
    world[2].comments.append(stored_mod.Comment(("t", "WEB", 1), "K3", "u9", "nobody said this", 1))
    assert failing(world)["comments stored as told, none untold"] == [
        f"comment(s) stored more than once: t/WEB-3 {BODY!r} ×2",
        "comment(s) stored that no user was told of: t/WEB-1 'nobody said this'",
    ]


def test_an_issue_stored_but_never_told_or_twice_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    copy = world[2].issues[("t", "WEB", 3)]
    world[2].issues[("t", "WEB", 4)] = stored_mod.StoredIssue(copy.title, "open", "high", "u1", "u1", frozenset(), 1)
    assert failing(world)["issues stored as told, none untold"] == [
        "created once, stored more than once: t/WEB 'Export breaks m00x0001'",
        "issue(s) stored that no user was told of: t/WEB-4",
    ]


def test_an_issue_stored_otherwise_than_told_is_caught(world: tuple[Any, Any, Any]) -> None:
    world[0].ledger.issues[0].status = "in_progress"  # the user was told in progress; resolved is stored
    assert failing(world)["issues stored as told, none untold"] == [
        "stored otherwise than told: t/WEB-3 status resolved (told in_progress)"
    ]


def test_a_busy_create_that_wrote_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].issues[("t", "WEB", 4)] = stored_mod.StoredIssue(BUSY_TITLE, "open", "low", "u1", "u1", frozenset(), 1)
    world[2].idempotency_keys.add("t#issue#WEB#01BUSY")
    found = failing(world)
    assert found["busy creates wrote nothing"] == [
        f"create(s) answered busy wrote something: t/WEB {BUSY_TITLE!r} (an issue), "
        f"t/WEB {BUSY_TITLE!r} (its idempotency record)"
    ]
    assert "issue(s) stored that no user was told of: t/WEB-4" in found["issues stored as told, none untold"]


def test_a_wrong_unread_count_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].heads[("t", "u1")] = stored_mod.Head(2, "")
    assert failing(world) == {
        "inbox: notifications and unread counts": [
            "unread count(s) differ from the unread notifications: t u1: count 2, unread 1"
        ]
    }


def test_read_through_marks_older_notifications_read(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].heads[("t", "u1")] = stored_mod.Head(0, f"n#{E3[:24]}#~")  # "mark all read" after E3
    assert failing(world) == {}
    world[2].heads[("t", "u1")] = stored_mod.Head(0, f"n#{E2[:24]}#~")  # … only up to E2: E3 is still unread
    assert failing(world) == {
        "inbox: notifications and unread counts": [
            "unread count(s) differ from the unread notifications: t u1: count 0, unread 1"
        ]
    }


def test_a_notification_with_no_event_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    ghost = "2026-11-25T20:00:09.000Z#00000009"
    world[2].notifications.append(stored_mod.Notification("t", "u2", ghost, "WEB", 3, "u1", "issue.edited", True))
    assert failing(world) == {
        "inbox: notifications and unread counts": [f"notification(s) with no event: t u2 WEB-3 {ghost}"]
    }


def test_a_notification_to_a_non_watcher_or_of_ones_own_change_is_caught(
    world: tuple[Any, Any, Any], stored_mod: ModuleType
) -> None:
    world[2].notifications.append(stored_mod.Notification("t", "u3", E4, "WEB", 3, "u1", "issue.status", True))
    world[2].notifications.append(stored_mod.Notification("t", "u1", E1, "WEB", 3, "u1", "issue.created", True))
    assert failing(world) == {
        "inbox: notifications and unread counts": [
            f"notification(s) to someone not watching the issue: t u3 WEB-3 {E4}",
            f"notification(s) of a person's own change: t u1 WEB-3 {E1}",
        ]
    }


def test_a_watcher_who_missed_a_notification_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    """A lost fan-out: u2 watches WEB-3 since their comment (E3), and u1 changed its status after (E4),
    but u2's inbox never got E4 (its unread count agrees, so only the fan-out check can see it)."""
    world[2].notifications.pop()  # u2's notification of E4
    assert failing(world) == {
        "inbox: every watcher told of each change": [
            f"watcher(s) never told of a change (a lost fan-out): t u2 WEB-3 {E4} (issue.status by u1)"
        ]
    }


def test_the_reporter_missing_a_comment_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].notifications.pop(0)  # u1's (the reporter's) notification of u2's comment E3
    world[2].heads[("t", "u1")] = stored_mod.Head(0, "")  # counted as never delivered
    assert failing(world) == {
        "inbox: every watcher told of each change": [
            f"watcher(s) never told of a change (a lost fan-out): t u1 WEB-3 {E3} (comment.added by u2)"
        ]
    }


def test_a_watcher_is_owed_the_changes_from_when_they_began_watching(
    world: tuple[Any, Any, Any], stored_mod: ModuleType, inv: ModuleType
) -> None:
    """u3, mentioned in a comment (E5), watches from then on: told of E5 and what follows, not of E1..E4;
    an edited comment (E6) tells only whom it newly mentions; someone not in the team is never owed one."""
    st, stored = stored_mod, world[2]
    e5, e6, e7 = (f"2026-11-25T20:00:0{n}.000Z#0000000{n}" for n in (5, 6, 7))
    stored.events.append(st.Event("t#WEB#3", e5, "comment.added", "u2", {"mentions": ["u3", "x9"]}))
    stored.events.append(st.Event("t#WEB#3", e6, "comment.edited", "u2", {"mentions": ["u4"]}))
    stored.events.append(st.Event("t#WEB#3", e7, "attachment.removed", "u1", {}))  # tells nobody
    stored.notifications += [
        st.Notification("t", "u1", e5, "WEB", 3, "u2", "comment.added", True),
        st.Notification("t", "u3", e5, "WEB", 3, "u2", "comment.added", True),
        st.Notification("t", "u4", e6, "WEB", 3, "u2", "comment.edited", True),
    ]
    team = {"t": ["u1", "u2", "u3", "u4"]}  # x9 is no member: mentioned, never a watcher
    assert inv.check_fan_out(stored, team) == []
    assert inv.check_fan_out(stored) == [  # without the team, x9 counts as a member
        f"watcher(s) never told of a change (a lost fan-out): t x9 WEB-3 {e5} (comment.added by u2)"
    ]
    stored.notifications = [n for n in stored.notifications if n.user != "u3"]
    assert inv.check_fan_out(stored, team) == [
        f"watcher(s) never told of a change (a lost fan-out): t u3 WEB-3 {e5} (comment.added by u2)"
    ]


def test_a_new_issue_tells_its_assignee_as_it_was_then(stored_mod: ModuleType, inv: ModuleType) -> None:
    """The issue was created by u1 for u2, later reassigned to u3: u2 (assignee then) is owed the creation."""
    st = stored_mod
    e1, e2 = (f"2026-11-25T20:00:0{n}.000Z#0000000{n}" for n in (1, 2))
    stored = st.Stored(
        issues={("t", "WEB", 1): st.StoredIssue("Sync", "open", "low", "u3", "u1", frozenset(), 2)},
        events=[
            st.Event("t#WEB#1", e1, "issue.created", "u1", {"title": "Sync"}),
            st.Event("t#WEB#1", e2, "issue.edited", "u1", {"changed": {"assignee": ["u2", "u3"]}}),
        ],
        notifications=[st.Notification("t", "u2", e1, "WEB", 1, "u1", "issue.created", False)],
    )
    assert inv.check_fan_out(stored) == [
        f"watcher(s) never told of a change (a lost fan-out): t u2 WEB-1 {e2} (issue.edited by u1), "
        f"t u3 WEB-1 {e2} (issue.edited by u1)"
    ]
    stored.notifications += [
        st.Notification("t", name, e2, "WEB", 1, "u1", "issue.edited", False) for name in ("u2", "u3")
    ]
    assert inv.check_fan_out(stored) == []


def test_the_checkers_notifying_kinds_are_the_registrys(inv: ModuleType) -> None:
    from ddbmodels.events.kinds import NOTIFY_KINDS

    assert {str(kind) for kind in NOTIFY_KINDS} == inv.NOTIFYING


def test_a_stray_label_entry_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].labels.append(stored_mod.LabelEntry("t", "docs", "open", "WEB", 2, 1, "Login fails"))
    assert failing(world) == {
        "label entries equal the issues": [
            "stray label entr(ies) (no live issue with that label and status): t#docs open#WEB#2"
        ]
    }


def test_a_label_entry_left_under_the_old_status_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    world[2].labels[1] = stored_mod.LabelEntry("t", "bug", "open", "WEB", 3, 1, "Export breaks m00x0001")
    world[2].registry["t"].discard("ui")
    assert failing(world) == {
        "label entries equal the issues": [
            "label entr(ies) missing: t#bug resolved#WEB#3",
            "stray label entr(ies) (no live issue with that label and status): t#bug open#WEB#3",
            "label(s) in use but not registered: t#ui",
        ]
    }


def test_a_wrong_project_count_is_caught(world: tuple[Any, Any, Any]) -> None:
    world[2].projects[("t", "WEB")]["open"] = 2
    assert failing(world) == {
        "project counts equal the issues": [
            "project count(s) differ from the issues: t/WEB counts {'open': 2, 'in_progress': 0, 'resolved': 1, "
            "'closed': 1}, issues {'open': 1, 'in_progress': 0, 'resolved': 1, 'closed': 1}"
        ]
    }


def test_a_search_document_missing_or_stale_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    docs = world[2].documents
    docs[:] = [d for d in docs if d.number != 1]
    docs[1] = stored_mod.Document(
        "t", "WEB", 3, "", "Export breaks m00x0001", "Made by the load test.", "open", " bug ", "u1", 1, False
    )
    assert failing(world) == {
        "search documents equal the items": [
            "search document(s) missing: t/WEB-1",
            "search document(s) unlike their item: t/WEB-3 v1, item v2",
        ]
    }


def test_an_event_missing_or_recorded_twice_is_caught(world: tuple[Any, Any, Any], stored_mod: ModuleType) -> None:
    events = world[2].events
    events[:] = [e for e in events if e.kind != "attachment.added"] + [
        stored_mod.Event("t#WEB#3", "2026-11-25T20:00:08.000Z#00000008", "issue.status", "u1")
    ]
    assert failing(world) == {
        "events recorded by the steps": [
            "events differ from the steps done: t#WEB#3 attachment.added: done 1, recorded 0, "
            "t#WEB#3 issue.status: done 1, recorded 2"
        ],
        "inbox: every watcher told of each change": [  # the extra event reached no watcher either
            "watcher(s) never told of a change (a lost fan-out): t u2 WEB-3 2026-11-25T20:00:08.000Z#00000008 "
            "(issue.status by u1)"
        ],
    }


def test_an_attachment_untold_in_flight_or_unlike_is_caught(
    world: tuple[Any, Any, Any], stored_mod: ModuleType
) -> None:
    world[2].attachments["A1"] = stored_mod.Attachment(("t", "WEB", 3), "A1", "Attached", 11, "x", False)
    world[2].attachments["A9"] = stored_mod.Attachment(("t", "WEB", 1), "A9", "Attaching", 5, "y", True)
    assert failing(world) == {
        "attachments stored as told, none untold": [
            "attachments not as their flow left them: A1 stored 11 B, sent 10 B (or other bytes)",
            "attachment(s) stored that no user was told of: t/WEB-1 A9 Attaching",
            "attachments still in flight: A9",
        ]
    }


def test_the_reader_parses_raw_items_by_the_tables_key_formats(stored_mod: ModuleType) -> None:
    tables = {
        "issues": [
            {"pk": "t#WEB", "n": 0, "ic": {"open": 1, "closed": 0}},
            {"pk": "t#WEB", "n": 7, "t": "A", "st": "open", "pr": "low", "as": "u1", "rp": "u2", "lb": {"bug"}, "v": 3},
        ],
        "labels": [{"lk": "t#bug", "s": "open#WEB#000000000007", "v": 3, "t": "A"}, {"lk": "t", "s": "bug"}],
        "orders": [{"c": "t", "t": "2026-11-25T20:00:00.000Z#000000000000042", "n": 42, "p": "seats", "q": 2}],
        "counters": [{"pk": "orders", "v": 42}],
        "attachments": [{"pk": "t#WEB#7", "id": "A1", "st": "Attaching", "sz": 5, "sh": "x", "gp": "Attaching#1"}],
        "comments": [{"s": "t#WEB#7", "t": "K", "a": "u2", "b": "hi", "v": 1}],
        "inbox": [
            {"pk": "t#WEB#7", "sk": "w#u1", "tn": "t"},
            {"pk": "t#u1", "sk": "#", "c": 1, "tn": "t"},
            {"pk": "t#u1", "sk": f"n#{E1}", "pj": "WEB", "n": 7, "ac": "u2", "k": "comment.added"},
            {"pk": "t#u1", "sk": "m#WEB#7", "ws": "x"},
        ],
        "idempotency_keys": [{"k": "t#issue#WEB#01K", "ts": "t#3"}],
        "scores": [{"pk": "t#user#u1", "sc": 5}, {"pk": "t#issue#WEB#7", "pts": 5}],
    }
    got = stored_mod.parse(tables, [{"s": "t#WEB#7", "t": E1, "kind": "comment.added", "actor": "u2"}])
    assert got.projects == {("t", "WEB"): {"open": 1, "closed": 0}}
    assert got.issues[("t", "WEB", 7)].labels == frozenset({"bug"})
    assert got.numbers == {("t", "WEB"): [7]}
    assert got.labels == [stored_mod.LabelEntry("t", "bug", "open", "WEB", 7, 3, "A")]
    assert got.registry == {"t": {"bug"}}
    assert (got.orders, got.counters) == ([("t", 42, "seats", 2)], {"orders": 42})
    assert got.attachments["A1"].in_flight
    assert got.attachments["A1"].issue == ("t", "WEB", 7)
    assert got.comments[0].issue == ("t", "WEB", 7)
    assert got.watchers == {("t#WEB#7", "u1")}
    assert got.heads == {("t", "u1"): stored_mod.Head(1, "")}
    assert got.notifications == [stored_mod.Notification("t", "u1", E1, "WEB", 7, "u2", "comment.added", False)]
    assert got.idempotency_keys == {"t#issue#WEB#01K"}
    assert got.scores == {("t", "u1"): 5}
    assert got.events == [stored_mod.Event("t#WEB#7", E1, "comment.added", "u2")]


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
def test_the_quick_run_makes_every_kind_holds_every_invariant_and_reports_its_figures(
    dynamodb_local: services.Service, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "REDIS_", "CELERY_"))}
    env.update({"DYNAMODB_ENDPOINT_URL": dynamodb_local.url, "DYNAMODB_TABLE_PREFIX": "test-load-"})
    command = [sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path), "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=400, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True
    assert {name for name, c in summary["invariants"].items() if c["failures"]} == set()
    assert summary["server_errors"] == 0
    assert {name: e["count"] for name, e in summary["log_errors"].items()} == {"web": 0, "worker": 0}
    made = summary["exercised"]  # a check of nothing proves nothing: the quick run makes every kind
    kinds = ("issues created", "status changes", "busy creates", "comments", "orders", "attachments", "detached")
    kinds += ("events", "watchers", "notifications", "label entries", "search documents", "projects counted", "scores")
    assert [kind for kind in kinds if made[kind] < 1] == []
    assert made["search documents"] >= made["issues stored"] + made["comments"]  # seeded issues indexed too
    assert summary["made"]["hot_issues"] > 0
    checked = {name: c["checked"] for name, c in summary["invariants"].items()}
    assert checked["issues stored as told, none untold"] == summary["made"]["issues"] == made["issues created"]
    assert checked["busy creates wrote nothing"] == summary["busy"] == made["busy creates"]
    assert summary["log_errors"]["web"]["busy_answers"] == summary["busy"]  # Django logs each busy 503
    assert summary["throttled_writes"] >= summary["busy"]  # each busy create was throttled, every attempt
    assert checked["comments stored as told, none untold"] == made["comments"]
    assert checked["orders stored as told, none untold"] == made["orders"]
    assert checked["attachments stored as told, none untold"] == made["attachments"]
    assert checked["inbox: notifications and unread counts"] == made["notifications"]
    assert checked["inbox: every watcher told of each change"] >= 1  # notifying events whose watchers were told
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


def test_the_reader_scans_real_tables_and_the_checks_catch_an_untold_order_and_a_wrong_unread_count(
    dynamodb_local: services.Service, load: ModuleType, stored_mod: ModuleType
) -> None:
    """Raw items put by a plain boto3 client into tables of a fresh prefix, read back by ``stored.read``."""
    import secrets

    inv = sys.modules["load_parts.invariants"]
    prefix = f"test-reader-{secrets.token_hex(3)}-"
    ddb = stored_mod.client(dynamodb_local.url)
    keys = {"orders": ("c", "t"), "counters": ("pk", None), "inbox": ("pk", "sk"), "events-2026-11": ("s", "t")}
    for base, (hash_key, range_key) in keys.items():
        schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
        schema += [{"AttributeName": range_key, "KeyType": "RANGE"}] if range_key else []
        ddb.create_table(
            TableName=prefix + base,
            KeySchema=schema,
            AttributeDefinitions=[{"AttributeName": a["AttributeName"], "AttributeType": "S"} for a in schema],
            BillingMode="PAY_PER_REQUEST",
        )
    try:
        put = ddb.put_item
        for number in (1, 2):  # #2 was never told to anyone
            t = {"S": f"2026-11-25T20:00:0{number}.000Z#{number:015d}"}
            order = {"c": {"S": "t"}, "t": t, "n": {"N": str(number)}, "p": {"S": "seats"}, "q": {"N": "2"}}
            put(TableName=prefix + "orders", Item=order)
        put(TableName=prefix + "counters", Item={"pk": {"S": "orders"}, "v": {"N": "2"}})
        event = {"s": {"S": "t#WEB#3"}, "t": {"S": E3}, "kind": {"S": "comment.added"}, "actor": {"S": "u2"}}
        event["data"] = {"M": {"comment": {"S": "K1"}, "mentions": {"L": [{"S": "u1"}]}}}
        put(TableName=prefix + "events-2026-11", Item=event)
        put(TableName=prefix + "inbox", Item={"pk": {"S": "t#WEB#3"}, "sk": {"S": "w#u1"}, "tn": {"S": "t"}})
        put(TableName=prefix + "inbox", Item={"pk": {"S": "t#u1"}, "sk": {"S": "#"}, "c": {"N": "2"}})  # 1 unread
        note = {"pj": {"S": "WEB"}, "n": {"N": "3"}, "ac": {"S": "u2"}, "k": {"S": "comment.added"}}
        put(TableName=prefix + "inbox", Item={"pk": {"S": "t#u1"}, "sk": {"S": f"n#{E3}"}, **note})
        got = stored_mod.read(dynamodb_local.url, prefix, database=None)
    finally:
        for base in keys:
            ddb.delete_table(TableName=prefix + base)
    assert got.items["orders"] == 2
    assert got.items["events"] == 1
    assert inv.check_orders([("t", 1, "seats", 2)], got) == ["order(s) stored that no user was told of: t #2"]
    assert inv.check_inbox(got) == ["unread count(s) differ from the unread notifications: t u1: count 2, unread 1"]
    assert got.events[0].data == {"comment": "K1", "mentions": ["u1"]}
    assert inv.check_fan_out(got) == []  # u1, mentioned, was told
    got.notifications.clear()
    assert inv.check_fan_out(got) == [
        f"watcher(s) never told of a change (a lost fan-out): t u1 WEB-3 {E3} (comment.added by u2)"
    ]


def test_the_throttle_closes_an_idle_kept_alive_connection_and_stops_at_once(load: ModuleType) -> None:
    """The pass-through's handler thread ends when its kept-alive connection sits idle (``idle_seconds``),
    so a web server that keeps its pool open does not hold a thread a connection until the run stops;
    and stopping it waits for no open connection."""
    import http.client
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    stack = sys.modules["load_parts.stack"]
    assert stack.Throttle.IDLE_SECONDS == 70  # the run's: above botocore's 60 s read timeout

    class Upstream(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    def get_item(conn: http.client.HTTPConnection) -> tuple[int, bytes]:
        conn.request("POST", "/", b"{}", {"X-Amz-Target": "DynamoDB_20120810.GetItem"})
        answer = conn.getresponse()
        return answer.status, answer.read()

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    throttle = stack.Throttle(f"http://127.0.0.1:{upstream.server_address[1]}", "zz-throttled", idle_seconds=0.5)
    port = int(throttle.url.rsplit(":", 1)[1])
    stopped = False
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        assert get_item(conn) == (200, b"{}")
        assert conn.sock is not None  # kept alive
        began = time.monotonic()
        try:
            closed = conn.sock.recv(1) == b""  # the proxy hung up: end of stream
        except TimeoutError:
            closed = False
        assert closed, "the idle kept-alive connection was still open after 5 s"
        assert time.monotonic() - began < 3
        conn.close()

        idle = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        assert get_item(idle) == (200, b"{}")  # a connection left open and idle while the run stops
        began = time.monotonic()
        throttle.stop()
        stopped = True
        assert time.monotonic() - began < 2
        idle.close()
    finally:
        if not stopped:
            throttle.stop()
        upstream.shutdown()
        upstream.server_close()
