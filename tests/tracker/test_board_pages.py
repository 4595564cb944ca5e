"""The board (/t/<team>/p/<KEY>/board/): a column per status, cards with their legal moves, a checked status change.

Each refusal (stale version, a move the workflow forbids, bad input, a viewer, another team)
changes nothing; an accepted move changes the status exactly once, by a form post (back to the
board) or a fetch (JSON).
"""

from __future__ import annotations

import json
import re

from ddbmodels import events, issues, labels, milestones
from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue, text, unchanged, version_of
from tracker.selectors.activity import issue_stream
from tracker.services.projects import project_counts_refresh

JSON = {"HTTP_ACCEPT": "application/json"}
CARD = re.compile(r'<li class="card" id="card-(\d+)"')


def _board(world: World, *statuses: str) -> None:
    """Issues 1, 2, … in ``statuses`` (one each, in order)."""
    for status in statuses:
        issue = new_issue(world, f"In {status}")
        path = {"open": [], "in_progress": ["in_progress"], "resolved": ["resolved"], "closed": ["closed"]}[status]
        for to in path:
            issue = issues.issue_change_status(issue, to=to)


def _columns(page: str) -> dict[str, list[int]]:
    """The card numbers in each column of a board page, top to bottom."""
    found = {}
    for match in re.finditer(r'<section class="column" id="column-(\w+)"(.*?)</section>', page, re.S):
        found[match.group(1)] = [int(n) for n in CARD.findall(match.group(2))]
    return found


def _counts(page: str) -> dict[str, str]:
    """The number in each column's heading."""
    return dict(re.findall(r'<h2 id="column-(\w+)-heading">.*?data-count title="[^"]*">([^<]+)</span>', page))


def _buttons(page: str, number: int) -> list[str]:
    card = re.search(rf'<li class="card" id="card-{number}".*?</li>', page, re.S)
    assert card, f"no card {number}"
    return re.findall(r'<button type="submit" name="to" value="(\w+)"', card.group(0))


def _status_events(world: World, number: int) -> int:
    issue = load(world, number)
    assert issue is not None
    found = events.stream_events_all(stream=issue_stream(issue))
    return sum(1 for event in found if event.kind == events.Kind.ISSUE_STATUS)


# ------------------------------------------------------------------------------------------- the page


def test_the_board_shows_a_column_per_status_and_each_card_only_its_legal_moves(world: World) -> None:
    new_issue(world, "In open", labels=["ui", "bug"], assignee=world.member.username, priority="urgent")
    bug = labels.label_get(world.slug, "bug")
    assert bug is not None
    labels.label_save(world.slug, "bug", colour="red", description="", expected_version=int(bug.version or 0))
    _board(world, "in_progress", "resolved", "closed", "open")
    client = world.client_for(world.member)
    with capacity.measure() as meter:
        response = client.get(world.project_url("board/"))
    assert response.status_code == 200
    page = text(response)
    assert _columns(page) == {"open": [5, 1], "in_progress": [2], "resolved": [3], "closed": [4]}  # newest first
    board_reads = meter.by_pattern["board.columns"]
    assert (board_reads.calls, board_reads.requests, board_reads.rcu) == (1, 4, 4 * 0.5)  # one Query a column
    assert _buttons(page, 1) == ["in_progress", "resolved", "closed"]
    assert _buttons(page, 2) == ["open", "resolved", "closed"]
    assert _buttons(page, 3) == ["open", "closed"]
    assert _buttons(page, 4) == ["open"]
    card = re.search(r'<li class="card" id="card-1".*?</li>', page, re.S).group(0)  # type: ignore[union-attr]
    for shown in ("WEB-1", "In open", "Urgent", world.member.username):
        assert shown in card
    assert re.findall(r'class="label label-(\w+)"[^>]*>(\w+)<', card) == [("red", "bug"), ("grey", "ui")]
    assert f'name="v" value="{version_of(world, 1)}"' in card
    assert 'aria-label="Move WEB-1 to In progress"' in card
    assert 'draggable="true"' in card
    assert 'src="/static/tracker/board.js"' in page


def test_the_project_list_links_to_its_board(world: World) -> None:
    page = text(world.client_for(world.viewer).get(world.project_url()))
    assert f'<a href="{world.project_url("board/")}">Board</a>' in page


def test_a_viewer_sees_the_board_without_moves_and_a_forged_move_is_refused(world: World) -> None:
    _board(world, "open", "in_progress")
    client = world.client_for(world.viewer)
    page = text(client.get(world.project_url("board/")))
    assert _columns(page) == {"open": [1], "in_progress": [2], "resolved": [], "closed": []}
    assert "<button" not in page.split('<div class="board"', 1)[1]
    assert "draggable" not in page
    assert "board.js" not in page
    with unchanged(world):
        for headers in ({}, JSON):
            response = client.post(world.project_url("board/move/"), {"n": 1, "v": 1, "to": "resolved"}, **headers)
            assert response.status_code == 403


def test_another_team_finds_no_board_and_cannot_move_its_cards(world: World, make_world) -> None:  # type: ignore[no-untyped-def]
    _board(world, "open")
    stranger = make_world(with_project=False).owner
    client = world.client_for(stranger)
    assert client.get(world.project_url("board/")).status_code == 404
    with unchanged(world):
        assert client.post(world.project_url("board/move/"), {"n": 1, "v": 1, "to": "closed"}).status_code == 404
    assert client.get(world.url("p/NOPE/board/")).status_code == 404


def test_each_column_pages_on_its_own_and_a_cursor_works_only_in_its_column(world: World) -> None:
    for _ in range(27):
        new_issue(world)
    issues.issue_change_status(load(world, 1), to="closed")
    client = world.client_for(world.member)
    first = text(client.get(world.project_url("board/")))
    columns = _columns(first)
    assert columns["open"] == list(range(27, 2, -1))
    assert columns["closed"] == [1]
    # No counts refreshed yet: what the first pages show; then the project's counts, which agree with them.
    assert _counts(first) == {"open": "25+", "in_progress": "0", "resolved": "0", "closed": "1"}
    project_counts_refresh(tenant=world.slug, key=world.project_key)  # as the debounced task does
    assert _counts(text(client.get(world.project_url("board/")))) == {
        "open": "26",
        "in_progress": "0",
        "resolved": "0",
        "closed": "1",
    }
    more = re.search(r'<a rel="next" href="([^"]+)">More open', first)
    assert more
    assert '<a rel="next"' not in first.split('id="column-in_progress"', 1)[1]
    url = more.group(1).replace("&amp;", "&")
    second = text(client.get(url))
    assert _columns(second) == {"open": [2], "in_progress": [], "resolved": [], "closed": [1]}
    assert "Newest first" in second
    assert "← Previous" in second
    cursor = url.split("open=", 1)[1]
    wrong = client.get(world.project_url(f"board/?closed={cursor}"))
    assert wrong.status_code == 400
    assert "This page link belongs to another list." in text(wrong)
    assert client.get(world.project_url("board/?open=tampered")).status_code == 400


# --------------------------------------------------------------------------------------------- moves


def test_a_form_move_changes_the_status_once_and_returns_to_the_board(world: World) -> None:
    _board(world, "open")
    client = world.client_for(world.member)
    before = version_of(world, 1)
    response = client.post(world.project_url("board/move/"), {"n": 1, "v": before, "to": "in_progress"})
    assert response.status_code == 302
    assert response["Location"] == world.project_url("board/")
    assert flash(response) == ["WEB-1 is now In progress."]
    moved = load(world, 1)
    assert (moved.status, int(moved.version)) == ("in_progress", before + 1)
    assert _status_events(world, 1) == 1
    page = text(client.get(response["Location"]))
    assert _columns(page)["in_progress"] == [1]
    assert "WEB-1 is now In progress." in page
    with unchanged(world):  # the same form sent again: its version is stale now
        again = client.post(world.project_url("board/move/"), {"n": 1, "v": before, "to": "in_progress"})
    assert again.status_code == 409
    assert "WEB-1 is already In progress: it was moved there since the board was loaded" in text(again)
    assert f'href="{world.project_url("board/")}"' in text(again)
    assert _status_events(world, 1) == 1


def test_a_fetch_move_answers_the_new_state_as_json(world: World) -> None:
    _board(world, "in_progress")
    client = world.client_for(world.member)
    version = version_of(world, 1)
    response = client.post(world.project_url("board/move/"), {"n": 1, "v": version, "to": "resolved"}, **JSON)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {
        "status": "resolved",
        "version": version + 1,
        "moves": ["open", "closed"],
        "message": "WEB-1 is now Resolved.",
    }
    assert load(world, 1).status == "resolved"
    assert _status_events(world, 1) == 1  # this move (the set-up went straight to ddbmodels: no event)


def test_a_stale_fetch_move_is_409_with_the_current_state_and_changes_nothing(world: World) -> None:
    _board(world, "open")
    client = world.client_for(world.member)
    stale = version_of(world, 1)
    issues.issue_change_status(load(world, 1), to="resolved")  # someone else, since the board was read
    with unchanged(world):
        response = client.post(world.project_url("board/move/"), {"n": 1, "v": stale, "to": "in_progress"}, **JSON)
    assert response.status_code == 409
    assert json.loads(response.content) == {
        "error": "changed",
        "message": "WEB-1 changed since the board was loaded: it is now Resolved. "
        "Its card is shown there now; this move was not made.",
        "current": {"status": "resolved", "version": stale + 1, "moves": ["open", "closed"]},
    }


def test_a_move_sent_again_after_its_answer_was_lost_says_it_is_already_there(world: World) -> None:
    _board(world, "open")
    client = world.client_for(world.member)
    version = version_of(world, 1)
    sent = {"n": 1, "v": version, "to": "in_progress"}
    assert client.post(world.project_url("board/move/"), sent, **JSON).status_code == 200  # its answer lost
    with unchanged(world):
        again = client.post(world.project_url("board/move/"), sent, **JSON)
        posted = client.post(world.project_url("board/move/"), sent)
    assert again.status_code == posted.status_code == 409
    said = (
        "WEB-1 is already In progress: it was moved there since the board was loaded "
        "(perhaps by this same move, sent before). Nothing more was done."
    )
    assert json.loads(again.content) == {
        "error": "changed",
        "message": said,
        "current": {"status": "in_progress", "version": version + 1, "moves": ["open", "resolved", "closed"]},
    }
    assert said in text(posted)
    assert _status_events(world, 1) == 1


def test_a_move_to_the_column_the_card_is_in_says_nothing_was_done_not_moved_since(world: World) -> None:
    """R2-3: sent with the board's own version (a crafted post, or two tabs), nothing moved the issue meanwhile."""
    _board(world, "open")
    client = world.client_for(world.member)
    version = version_of(world, 1)
    sent = {"n": 1, "v": version, "to": "open"}
    with unchanged(world):
        fetched = client.post(world.project_url("board/move/"), sent, **JSON)
        posted = client.post(world.project_url("board/move/"), sent)
    assert fetched.status_code == posted.status_code == 409
    said = "WEB-1 is already Open; nothing was done."
    assert json.loads(fetched.content)["message"] == said
    assert json.loads(fetched.content)["current"] == {
        "status": "open",
        "version": version,
        "moves": ["in_progress", "resolved", "closed"],
    }
    assert said in text(posted)
    assert "moved there since" not in text(posted)
    assert _status_events(world, 1) == 0


def test_a_move_the_workflow_forbids_is_409_and_changes_nothing(world: World) -> None:
    _board(world, "closed")
    client = world.client_for(world.member)
    version = version_of(world, 1)
    with unchanged(world):
        fetched = client.post(world.project_url("board/move/"), {"n": 1, "v": version, "to": "resolved"}, **JSON)
        posted = client.post(world.project_url("board/move/"), {"n": 1, "v": version, "to": "resolved"})
        same = client.post(world.project_url("board/move/"), {"n": 1, "v": version, "to": "closed"}, **JSON)
    assert fetched.status_code == posted.status_code == same.status_code == 409
    answer = json.loads(fetched.content)
    assert answer["error"] == "not_allowed"
    assert answer["message"] == "WEB-1 is Closed; it cannot move to Resolved. Nothing was moved."
    assert answer["current"] == {"status": "closed", "version": version, "moves": ["open"]}
    assert "WEB-1 is Closed; it cannot move to Resolved. Nothing was moved." in text(posted)
    assert _status_events(world, 1) == 0


def test_a_move_not_understood_is_400_and_changes_nothing(world: World) -> None:
    _board(world, "open")
    client = world.client_for(world.member)
    version = version_of(world, 1)
    cases = [
        ({"n": 1, "v": version, "to": "done"}, "Unknown status."),
        ({"n": 1, "to": "closed"}, "The card is missing its version; reload the board."),
        ({"n": "one", "v": version, "to": "closed"}, "Unknown issue number."),
        ({"v": version, "to": "closed"}, "Unknown issue number."),
    ]
    with unchanged(world):
        for data, message in cases:
            page = client.post(world.project_url("board/move/"), data)
            assert page.status_code == 400, data
            assert message in text(page)
            fetched = client.post(world.project_url("board/move/"), data, **JSON)
            assert fetched.status_code == 400, data
            assert json.loads(fetched.content)["message"] == message
        assert client.post(world.project_url("board/move/"), {"n": 9, "v": 1, "to": "closed"}).status_code == 404
        assert client.get(world.project_url("board/move/")).status_code == 405


def test_a_form_move_keeps_the_columns_where_they_were_paged_to(world: World) -> None:
    for _ in range(27):
        new_issue(world)
    client = world.client_for(world.member)
    first = text(client.get(world.project_url("board/")))
    url = re.search(r'<a rel="next" href="([^"]+)">More open', first).group(1).replace("&amp;", "&")  # type: ignore[union-attr]
    page = text(client.get(url))
    action = re.search(r'<form class="moves" method="post" action="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    assert action.startswith(world.project_url("board/move/?open="))
    sent = {"n": 2, "v": version_of(world, 2), "to": "closed"}
    response = client.post(action.replace("&amp;", "&"), sent)
    assert response.status_code == 302
    assert response["Location"] == url
    with unchanged(world):  # sent again: the error pages' 409 (REFUSALS["board_move"]) leads back to the same page
        again = client.post(action.replace("&amp;", "&"), sent)
    assert again.status_code == 409
    assert "WEB-2 is already Closed" in text(again)
    assert f'href="{url.replace("&", "&amp;")}" class="back">Back to the board' in text(again)


# ------------------------------------------------------------------------------------------ milestone


def test_a_milestone_board_shows_only_its_issues_and_a_move_keeps_it(world: World) -> None:
    for _ in range(27):
        new_issue(world)
    v12, _ = milestones.milestone_create(
        tenant=world.slug, project_key=world.project_key, name="v1.2", due=None, created_by=world.owner.username
    )
    milestones.milestone_create(
        tenant=world.slug, project_key=world.project_key, name="v2", due=None, created_by=world.owner.username
    )
    for number in (1, 3):
        issues.issue_change(load(world, number), token=f"set-{number}", milestone=v12.milestone_id)
    issues.issue_change_status(load(world, 3), to="in_progress")
    client = world.client_for(world.member)
    listed = text(client.get(world.project_url("milestones/")))  # each milestone links to its board
    assert f'<a href="{world.project_url("board/")}?milestone=v1.2">board</a>' in listed
    whole = text(client.get(world.project_url("board/")))
    assert f'<a href="{world.project_url("milestones/")}">Milestones</a>' in whole
    assert '<option value="">All issues</option>' in whole
    assert '<option value="v1.2">v1.2</option>' in whole
    with capacity.measure() as meter:
        response = client.get(world.project_url("board/?milestone=V1.2"))  # names are case-insensitive
    assert response.status_code == 200
    page = text(response)
    assert _columns(page) == {"open": [1], "in_progress": [3], "resolved": [], "closed": []}
    assert (meter.by_pattern["board.columns"].calls, meter.by_pattern["board.columns"].requests) == (1, 4)
    assert '<option value="v1.2" selected>v1.2</option>' in page
    assert "board · v1.2</small>" in page
    action = re.search(r'<form class="moves" method="post" action="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    assert action == world.project_url("board/move/?milestone=V1.2")
    moved = client.post(action, {"n": 1, "v": version_of(world, 1), "to": "resolved"})
    assert moved.status_code == 302
    assert moved["Location"] == world.project_url("board/?milestone=V1.2")
    assert _columns(text(client.get(moved["Location"]))) == {
        "open": [],
        "in_progress": [3],
        "resolved": [1],
        "closed": [],
    }
    # The whole board's "More" link is not a page of the milestone's column, and an unknown name is said so.
    cursor = re.search(r'<a rel="next" href="[^"]*open=([^"&]+)', whole).group(1)  # type: ignore[union-attr]
    assert client.get(world.project_url(f"board/?open={cursor}&milestone=v1.2")).status_code == 400
    missing = client.get(world.project_url("board/?milestone=v9"))
    assert missing.status_code == 400
    assert "WEB has no milestone called “v9”." in text(missing)
