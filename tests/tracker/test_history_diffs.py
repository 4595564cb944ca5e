"""The issue's history shows what a title or description edit changed, word by word (issue 21).

New description edits keep a capped word diff in their event (``data["diff"]``); events written
before keep only that the description changed, and say "earlier text not kept". Title edits have
always kept both titles, so old and new ones get a diff.
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.conf import settings

from ddbmodels import events
from ddbmodels.core import keys
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from tests.tracker.conftest import World
from tests.tracker.helpers import load, text
from tracker.selectors.activity import issue_history_page
from tracker.text_diff import DIFF_MAX_BYTES

BEFORE = "Steps: open the editor, type a title and press save. The page shows a 500."
AFTER = "Steps: open the editor, type a long title and press save twice. The page shows a 500."


def created(world: World, description: str = BEFORE) -> None:
    client = world.client_for(world.member)
    response = client.post(
        world.project_url("new/"), {"title": "Crash on save", "description": description, "priority": "medium"}
    )
    assert response.status_code == 302


def edit(world: World, *, title: str = "Crash on save", description: str) -> None:
    issue = load(world, 1)
    assert issue is not None
    form = {"title": title, "description": description, "priority": "medium", "version": issue.version}
    response = world.client_for(world.member).post(world.project_url("1/edit/"), form)
    assert response.status_code == 302, text(response)


def edited_events(world: World) -> list[events.Event]:
    stream = keys.issue_stream(world.slug, world.project_key, 1)
    return [
        e for e in events.stream_events(stream=stream, period=settings.EVENTS_PERIOD) if e.kind == Kind.ISSUE_EDITED
    ]


def diffs_on_page(page: str) -> list[str]:
    """Each diff on the page as a reader sees it: [-removed-] {+added+}, … for unchanged words left out."""
    found = re.findall(
        r'<details class="word-diff"><summary>What changed</summary><p class="diff-text">(.*?)</p>', page
    )
    marked = []
    for diff in found:
        diff = re.sub(r'<del class="diff-del"><span class="diff-said">removed: </span>(.*?)</del>', r"[-\1-]", diff)
        diff = re.sub(r'<ins class="diff-ins"><span class="diff-said">added: </span>(.*?)</ins>', r"{+\1+}", diff)
        marked.append(re.sub(r'<span class="diff-gap"[^>]*>… </span>', "…", diff))
    return marked


def test_a_description_edit_keeps_its_word_diff_and_the_history_shows_it(world: World) -> None:
    created(world)
    edit(world, description=AFTER)
    [event] = edited_events(world)
    assert event.data["description"] is True  # the inbox's wording and fan-out read it, as before
    assert event.data["diff"] == [
        "=Steps: open the editor, type a ",
        "+long ",
        "=title and press save ",
        "+twice",
        "=. The page shows a 500.",
    ]
    page = text(world.client_for(world.viewer).get(world.project_url("1/")))
    assert f"<strong>{world.member.username}</strong> edited the description" in page
    assert diffs_on_page(page) == [
        "Steps: open the editor, type a {+long +}title and press save {+twice+}. The page shows a 500."
    ]


def test_an_old_description_edit_says_its_earlier_text_was_not_kept(world: World) -> None:
    created(world)
    issue = load(world, 1)
    assert issue is not None
    events.event_put(  # as every description edit before issue 21 was recorded
        stream=keys.issue_stream(world.slug, world.project_key, 1),
        kind=Kind.ISSUE_EDITED,
        actor=world.member.username,
        tenant=world.slug,
        data={"changed": {}, "description": True},
        when=utcnow() + timedelta(seconds=1),
        period=settings.EVENTS_PERIOD,
        shards=settings.EVENTS_SHARDS,
    )
    [line, _] = issue_history_page(issue=issue).lines
    assert line.text == "edited the description (earlier text not kept)"
    assert line.changes is None
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    assert "edited the description (earlier text not kept)" in page
    assert 'class="word-diff"' not in page


def test_a_title_edit_shows_its_diff_old_events_included(world: World) -> None:
    created(world)
    edit(world, title="Crash when saving a draft", description=BEFORE)
    [event] = edited_events(world)
    assert event.data == {"changed": {"title": ["Crash on save", "Crash when saving a draft"]}}  # as always
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    assert "changed the title from “Crash on save” to “Crash when saving a draft”" in page
    assert diffs_on_page(page) == ["Crash [-on save-]{+when saving a draft+}"]


def test_a_long_rewrite_is_capped_and_says_how_much_was_not_kept(world: World) -> None:
    old = " ".join(f"old{i}" for i in range(1200))
    new = " ".join(f"new{i}" for i in range(1200))
    assert len(new) <= 10_000
    created(world, description=old)
    edit(world, description=new)
    [event] = edited_events(world)
    diff = event.data["diff"]
    assert sum(len(op.encode()) for op in diff) <= DIFF_MAX_BYTES
    assert diff[0].startswith("-old0 old1 ")
    left_out = int(diff[-1].removeprefix("!"))
    assert left_out > 2000  # of 2,400 changed words, most were not kept
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    assert f"…and {left_out} more changed words, too long to keep in the history." in page
    assert "[-old0 old1 old2" in diffs_on_page(page)[0]


def test_a_spacing_only_edit_says_so_without_a_diff(world: World) -> None:
    created(world)
    edit(world, description=BEFORE.replace(". ", ".\n\n"))
    [event] = edited_events(world)
    assert event.data["diff"] == []
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    assert "edited the description (only spacing or line breaks changed)" in page
    assert 'class="word-diff"' not in page


def test_the_diff_is_escaped_not_markup(world: World) -> None:
    created(world, description="Say hi")
    edit(world, description='Say <script>alert("x")</script> hi')
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    [diff] = diffs_on_page(page)
    assert "<script>" not in diff
    assert "&lt;script&gt;" in diff


def test_the_team_s_day_shows_the_same_diff(world: World) -> None:
    created(world)
    edit(world, description=AFTER)
    page = text(world.client_for(world.viewer).get(world.url("activity/")))
    shown = "Steps: open the editor, type a {+long +}title and press save {+twice+}. The page shows a 500."
    assert diffs_on_page(page) == [shown]
