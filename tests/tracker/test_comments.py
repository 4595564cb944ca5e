"""Comments on the issue page: members post markdown, authors edit and delete their own, viewers only read."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import unquote

from django.test import Client, override_settings

from ddbmodels import comments, events
from ddbmodels.comments import CommentItem
from tests import dynamodb_faults
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, new_issue, text

HOSTILE = '**bold** <script>alert("x")</script> [click](javascript:alert(1)) <img src=x onerror=alert(2)>'


def stored(world: World, number: int = 1) -> list[CommentItem]:
    """The issue's comments as DynamoDB has them (consistent), oldest first."""
    return list(CommentItem.query(comments.issue_stream(world.slug, "WEB", number), consistent_read=True))


def post(client: Client, world: World, body: str, number: int = 1, **extra: str) -> object:
    return client.post(world.project_url(f"{number}/comments/"), {"body": body, **extra})


def comment_url(world: World, comment: CommentItem, action: str, number: int = 1) -> str:
    return world.project_url(f"{number}/comments/{comments.comment_id(comment.key)}/{action}/")


def test_a_member_posts_markdown_and_sees_it_rendered_safely(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    response = post(client, world, HOSTILE)
    assert response.status_code == 302  # type: ignore[attr-defined]
    location = response["Location"]  # type: ignore[index]
    assert location.startswith(world.project_url("1/?comments="))
    (comment,) = stored(world)
    assert location.endswith(f"#comment-{comments.comment_id(comment.key)}")
    assert flash(response) == ["Comment posted."]  # type: ignore[arg-type]
    assert (comment.author, comment.body) == (world.member.username, HOSTILE)

    page = text(client.get(location))
    body = page[page.index('<div class="comment-body markdown">') :]
    body = body[: body.index("</div>")]
    assert "<strong>bold</strong>" in body
    assert "<script" not in page.lower().replace('<script src="/static/', "")
    assert "&lt;script&gt;" in body
    assert "javascript:" not in re.sub(r"\[click\]\(javascript:alert\(1\)\)", "", body)
    assert 'href="javascript' not in page
    assert "<img" not in page
    assert "onerror=alert(2)&gt;" in body  # text, not an attribute


@override_settings(EVENTS_PERIOD="day")
def test_mentions_of_members_are_links_and_each_comment_is_an_activity_event(world: World) -> None:
    issue = new_issue(world)
    client = world.client_for(world.member)
    owner, viewer = world.owner.username, world.viewer.username
    post(client, world, f"@{owner} and @{viewer} please look; @stranger too")

    page = text(client.get(world.project_url("1/")))
    for name in (owner, viewer):
        assert (
            f'<a href="/t/{world.slug}/issues/?assignee={name}" class="mention" rel="nofollow noopener">@{name}</a>'
            in page
        )
    assert "@stranger too" in page
    assert "assignee=stranger" not in page
    (comment,) = stored(world)
    (event,) = [
        e for e in events.stream_events(stream=f"{world.slug}#WEB#1", period="day") if e.kind.startswith("comment")
    ]
    assert event.kind == "comment.added"
    assert event.actor == world.member.username
    assert event.data == {"comment": comment.key, "mentions": [owner, viewer], "excerpt": comment.body[:140]}
    assert issue.reference == "WEB-1"


def test_a_viewer_sees_no_form_and_is_refused_posting(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.viewer)
    page = text(client.get(world.project_url("1/")))
    assert 'name="body"' not in page
    assert "No comments yet." in page
    response = post(client, world, "let me in")
    assert response.status_code == 403  # type: ignore[attr-defined]
    assert stored(world) == []


def test_an_empty_comment_is_a_form_error_and_nothing_is_stored(world: World) -> None:
    new_issue(world)
    response = post(world.client_for(world.member), world, "   \n  ")
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "This field is required." in text(response) or "A comment needs some text." in text(response)  # type: ignore[arg-type]
    assert 'name="body"' in text(response)  # type: ignore[arg-type]
    assert stored(world) == []


def test_the_same_form_sent_twice_adds_one_comment(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("1/")), "idempotency_key")
    first = post(client, world, "only once", idempotency_key=key)
    second = post(client, world, "only once", idempotency_key=key)
    assert flash(first) == ["Comment posted."]  # type: ignore[arg-type]
    assert flash(second)[-1:] == [
        "This comment was already posted; it was not added twice."
    ]  # (none was shown yet)  # type: ignore[arg-type]
    # both land on the one comment (the signed page link itself carries its signing time)
    assert first["Location"].split("#")[1] == second["Location"].split("#")[1]  # type: ignore[index]
    assert [c.body for c in stored(world)] == ["only once"]


def test_only_the_author_sees_edit_and_delete_and_others_get_403(world: World) -> None:
    new_issue(world)
    post(world.client_for(world.member), world, "member's words")
    (comment,) = stored(world)
    owner = world.client_for(world.owner)
    page = text(owner.get(world.project_url("1/")))
    assert comment_url(world, comment, "edit") not in page
    assert comment_url(world, comment, "delete") not in page
    assert owner.get(comment_url(world, comment, "edit")).status_code == 403
    refused = owner.post(comment_url(world, comment, "edit"), {"body": "owner's words", "version": 1})
    assert refused.status_code == 403
    assert owner.post(comment_url(world, comment, "delete"), {"version": 1}).status_code == 403
    assert [(c.body, int(c.version)) for c in stored(world)] == [("member's words", 1)]

    mine = text(world.client_for(world.member).get(world.project_url("1/")))
    assert comment_url(world, comment, "edit") in mine
    assert comment_url(world, comment, "delete") in mine


def test_the_author_edits_and_a_stale_edit_shows_both_texts_and_saves_nothing(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    post(client, world, "first draft")
    (comment,) = stored(world)
    edit = comment_url(world, comment, "edit")
    assert hidden_value(client.get(edit), "version") == "1"

    saved = client.post(edit, {"body": "second draft", "version": 1})
    assert saved.status_code == 302
    assert flash(saved) == ["Comment saved."]
    page = text(client.get(saved["Location"]))
    assert "second draft" in page
    assert "edited" in page

    stale = client.post(edit, {"body": "from an old tab", "version": 1})
    assert stale.status_code == 409
    page = unescape(text(stale))
    assert "This comment was changed since you opened it" in page
    assert "second draft" in page  # theirs (here: the other tab's), as it is now
    assert "from an old tab" in page  # mine, still in the box
    assert hidden_value(stale, "version") == "2"  # saving again is a decision made on what is there
    assert [(c.body, int(c.version)) for c in stored(world)] == [("second draft", 2)]


def test_the_author_deletes_and_a_stale_delete_is_a_409_that_keeps_it(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    post(client, world, "keep or drop")
    (comment,) = stored(world)
    client.post(comment_url(world, comment, "edit"), {"body": "edited", "version": 1})

    stale = client.post(comment_url(world, comment, "delete"), {"version": 1})
    assert stale.status_code == 409
    assert [c.body for c in stored(world)] == ["edited"]

    gone = client.post(comment_url(world, comment, "delete"), {"version": 2})
    assert gone.status_code == 302
    assert flash(gone) == ["Comment deleted."]
    assert stored(world) == []
    assert client.get(comment_url(world, comment, "edit")).status_code == 404


def test_comments_page_oldest_first_with_newer_and_older_links(world: World) -> None:
    new_issue(world)
    for i in range(23):
        comments.comment_add(
            tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body=f"note {i:02d}"
        )
    client = world.client_for(world.member)

    def shown(page: str) -> list[str]:
        return re.findall(r"<p>note (\d\d)</p>", page)

    first = text(client.get(world.project_url("1/")))
    assert shown(first) == [f"{i:02d}" for i in range(20)]
    assert "Older comments" not in first
    newer = re.search(r'<a rel="next" href="([^"]+)#comments">Newer comments</a>', first)
    assert newer is not None
    second = text(client.get(world.project_url("1/") + unescape(newer.group(1))))
    assert shown(second) == ["20", "21", "22"]
    assert "Newer comments" not in second
    older = re.search(r'<a rel="prev" href="([^"]+)#comments">Older comments</a>', second)
    assert older is not None
    back = text(client.get(world.project_url("1/") + unescape(older.group(1))))
    assert shown(back) == [f"{i:02d}" for i in range(20)]

    # A new comment lands on the newest page, where the redirect goes.
    latest = text(client.get(post(client, world, "note 23")["Location"]))  # type: ignore[index]
    assert shown(latest) == [f"{i:02d}" for i in range(4, 24)]


def test_a_tampered_or_foreign_comments_cursor_is_a_400(world: World) -> None:
    new_issue(world)
    new_issue(world, "Another")
    client = world.client_for(world.member)
    for i in range(21):
        comments.comment_add(tenant=world.slug, project_key="WEB", number=2, author=world.member.username, body=f"n{i}")
    page = text(client.get(world.project_url("2/")))
    match = re.search(r'href="\?comments=([^"#]+)#comments">Newer comments', page)
    assert match is not None
    cursor = unquote(unescape(match.group(1)))
    assert client.get(world.project_url("2/"), {"comments": cursor}).status_code == 200
    assert client.get(world.project_url("1/"), {"comments": cursor}).status_code == 400  # another issue's
    assert client.get(world.project_url("2/"), {"comments": cursor[:-3] + "xyz"}).status_code == 400


@override_settings(EVENTS_PERIOD="day")
def test_a_comment_whose_answer_is_lost_is_posted_once_with_one_event(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("1/")), "idempotency_key")
    answers = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"TransactWriteItems"}), rate=1.0, limit=1))
    try:
        response = post(client, world, "through a flaky network", idempotency_key=key)
    finally:
        dynamodb_faults.disarm_all()
    assert answers.lost == 1  # DynamoDB wrote it, the answer never came, botocore sent it again
    assert response.status_code == 302  # type: ignore[attr-defined]
    assert flash(response) == ["Comment posted."]  # type: ignore[arg-type]
    assert [c.body for c in stored(world)] == ["through a flaky network"]
    kinds = [e.kind for e in events.stream_events(stream=f"{world.slug}#WEB#1", period="day")]
    assert kinds.count("comment.added") == 1
