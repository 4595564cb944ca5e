"""The text boxes' helpers (tracker/views/assist.py): suggestions as one types, and the markdown preview."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.test import Client

from ddbmodels import comments, labels
from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, text, unchanged
from tests.tracker.test_markdown import Elements
from tracker.models import Membership
from tracker.selectors.assist import PREVIEW_MAX, member_suggestions


def suggest(client: Client, world: World, **params: str) -> object:
    return client.get(world.url("autocomplete/"), params)


def add_people(world: World, names: list[str], role: str = "member") -> None:
    for name in names:
        user = User.objects.create_user(name, password="pw-for-tests")
        Membership.objects.create(user=user, tenant=world.tenant, role=role)


# ------------------------------------------------------------------ autocomplete: people


def test_people_starting_with_the_prefix_any_case_by_name_at_most_ten(world: World) -> None:
    add_people(world, [f"ann{n:02}" for n in range(12)] + ["Anders", "bert"])
    client = world.client_for(world.member)
    response = suggest(client, world, kind="member", q="AN")
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert response["Content-Type"] == "application/json"  # type: ignore[index]
    found = response.json()  # type: ignore[attr-defined]
    assert found[0] == {"value": "Anders", "label": "Anders", "colour": None}
    assert [s["value"] for s in found] == ["Anders"] + [f"ann{n:02}" for n in range(9)]
    assert suggest(client, world, kind="member", q="ber").json() == [  # type: ignore[attr-defined]
        {"value": "bert", "label": "bert", "colour": None}
    ]
    assert suggest(client, world, kind="member", q="zed").json() == []  # type: ignore[attr-defined]


def test_viewers_are_offered_for_mentions_but_not_when_assignable(world: World) -> None:
    viewer = world.viewer.username
    client = world.client_for(world.member)
    offered = suggest(client, world, kind="member", q=viewer).json()  # type: ignore[attr-defined]
    assert offered == [{"value": viewer, "label": f"{viewer} (viewer)", "colour": None}]
    assert suggest(client, world, kind="member", q=viewer, assignable="1").json() == []  # type: ignore[attr-defined]
    everyone = suggest(client, world, kind="member", q="", assignable="1").json()  # type: ignore[attr-defined]
    assert [s["value"] for s in everyone] == sorted([world.member.username, world.owner.username])


def test_people_are_one_sql_query_and_no_dynamodb_read(world: World, django_assert_num_queries: object) -> None:
    with capacity.measure() as meter, django_assert_num_queries(1):  # type: ignore[operator]
        found = member_suggestions(tenant=world.tenant, prefix="", assignable=True)
    assert len(found) == 2
    assert dict(meter.by_operation) == {}


def test_another_teams_people_are_never_suggested_and_its_url_is_a_404(world: World, other_world: World) -> None:
    client = world.client_for(world.member)
    names = [s["value"] for s in suggest(client, world, kind="member", q="").json()]  # type: ignore[attr-defined]
    assert other_world.member.username not in names
    assert len(names) == 3
    assert suggest(client, other_world, kind="member", q="").status_code == 404  # type: ignore[attr-defined]
    assert Client().get(world.url("autocomplete/"), {"kind": "member"}).status_code == 302  # to the login page


def test_an_unknown_kind_or_an_overlong_prefix_is_a_400(world: World) -> None:
    client = world.client_for(world.viewer)
    assert suggest(client, world, kind="project", q="a").status_code == 400  # type: ignore[attr-defined]
    assert suggest(client, world, q="a").status_code == 400  # type: ignore[attr-defined]
    assert suggest(client, world, kind="member", q="a" * 151).status_code == 400  # type: ignore[attr-defined]
    assert client.post(world.url("autocomplete/"), {"kind": "member"}).status_code == 405


# ------------------------------------------------------------------ autocomplete: labels


def labelled(world: World, names: list[str]) -> None:
    """Register ``names`` in the team's catalogue, each with a colour and a description."""
    labels.registry_ensure(world.slug, names)
    for name in names:
        labels.label_save(world.slug, name, colour="red", description=f"about {name}", expected_version=0)


def test_labels_in_use_starting_with_the_prefix_by_name_with_their_colour(world: World) -> None:
    labelled(world, ["bug", "build", "burn", "docs", *[f"bx{n:02}" for n in range(12)]])
    old = labels.label_get(world.slug, "build")
    assert old is not None
    labels.label_mark(world.slug, "build", state=labels.RENAMING, expected_version=old.version, total=1)
    client = world.client_for(world.viewer)  # viewers read the team's labels too
    with capacity.measure() as meter:
        found = suggest(client, world, kind="label", q="BU").json()  # type: ignore[attr-defined]
    assert found == [
        {"value": "bug", "label": "bug — about bug", "colour": "red"},
        {"value": "burn", "label": "burn — about burn", "colour": "red"},
    ]  # build is being renamed: not offered
    assert dict(meter.by_operation) == {"Query": 1}
    everything = [s["value"] for s in suggest(client, world, kind="label", q="b").json()]  # type: ignore[attr-defined]
    assert everything == ["bug", "burn", *[f"bx{n:02}" for n in range(8)]]
    assert suggest(client, world, kind="label", q="zz").json() == []  # type: ignore[attr-defined]


def test_another_teams_labels_are_not_suggested(world: World, other_world: World) -> None:
    labelled(other_world, ["secret"])
    client = world.client_for(world.member)
    assert suggest(client, world, kind="label", q="s").json() == []  # type: ignore[attr-defined]
    assert suggest(client, other_world, kind="label", q="s").status_code == 404  # type: ignore[attr-defined]


# ------------------------------------------------------------------ preview


def preview(client: Client, world: World, body: str) -> object:
    return client.post(world.url("preview/"), {"body": body})


def test_preview_is_the_markdown_as_the_issue_page_shows_it_mentions_linked(world: World) -> None:
    owner, viewer = world.owner.username, world.viewer.username
    client = world.client_for(world.member)
    with capacity.measure() as meter:
        response = preview(client, world, f"**bold** @{owner} and @{viewer}, not @stranger\r\n# Steps")
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert response["Content-Type"] == "text/html; charset=utf-8"  # type: ignore[index]
    assert text(response) == (  # type: ignore[arg-type]
        f'<p><strong>bold</strong> <a href="/t/{world.slug}/issues/?assignee={owner}" class="mention" '
        f'rel="nofollow noopener">@{owner}</a> and <a href="/t/{world.slug}/issues/?assignee={viewer}" '
        'class="mention" rel="nofollow noopener">@' + viewer + "</a>, not @stranger</p>\n<h3>Steps</h3>\n"
    )
    assert dict(meter.by_operation) == {}  # no DynamoDB at all: nothing read, nothing written
    assert text(preview(client, world, "  \n")) == '<p class="muted">Nothing to preview.</p>'  # type: ignore[arg-type]


def test_preview_sanitises_as_the_pages_do(world: World) -> None:
    client = world.client_for(world.viewer)  # viewers may preview too (they read the team)
    html = text(preview(client, world, "<script>alert(1)</script>"))  # type: ignore[arg-type]
    assert html == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    for link in ("[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](data:text/html;base64,PHNjcmlwdD4=)"):
        html = text(preview(client, world, link))  # type: ignore[arg-type]
        assert "a" not in Elements(html).tags, link
        assert "href" not in html, link
    elements = Elements(text(preview(client, world, '<img src=x onerror="alert(1)"> ![p](http://example.com/p.png)')))  # type: ignore[arg-type]
    assert "img" not in elements.tags
    assert not any(name.startswith("on") for name in elements.attributes())
    assert ("a", {"href": "http://example.com/p.png", "rel": "nofollow noopener"}) in elements.found


def test_preview_takes_the_longest_text_a_box_takes_and_refuses_more(world: World) -> None:
    client = world.client_for(world.member)
    assert preview(client, world, "a" * PREVIEW_MAX).status_code == 200  # type: ignore[attr-defined]
    assert preview(client, world, "a\r\n" * (PREVIEW_MAX // 2)).status_code == 200  # type: ignore[attr-defined]
    response = preview(client, world, "a" * (PREVIEW_MAX + 1))
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert text(response) == "Too long to preview: a text holds at most 10,000 characters; this one has 10,001."  # type: ignore[arg-type]


def test_preview_wants_the_csrf_token_a_post_and_the_team(world: World, other_world: World) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(world.member)
    assert strict.post(world.url("preview/"), {"body": "hi"}).status_code == 403
    client = world.client_for(world.member)
    assert client.get(world.url("preview/"), {"body": "hi"}).status_code == 405
    assert preview(client, other_world, "hi").status_code == 404  # type: ignore[attr-defined]
    assert preview(Client(), world, "hi").status_code == 302  # type: ignore[attr-defined]


# ------------------------------------------------------------------ the "Preview" button without JavaScript


def shown_preview(response: object) -> str:
    """The preview section of a page (the form's "Preview" answer)."""
    match = re.search(r'<section class="preview-shown".*?</section>', text(response), re.S)  # type: ignore[arg-type]
    assert match, "no preview on the page"
    return match.group(0)


def comment_form_key(response: object) -> str:
    """The idempotency key of the issue page's comment form (the attachments form has one too)."""
    form = re.search(r'<form [^>]*class="comment-form".*?</form>', text(response), re.S)  # type: ignore[arg-type]
    assert form, "no comment form on the page"
    key = re.search(r'<input type="hidden" name="idempotency_key" value="([^"]*)"', form.group(0))
    assert key, "no key in the comment form"
    return key.group(1)


def test_previewing_a_new_issue_saves_nothing_and_keeps_the_forms_key(world: World) -> None:
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")
    form = {"title": "", "priority": "medium", "idempotency_key": key, "description": f"**Steps** @{world.owner}"}
    with unchanged(world):
        response = client.post(world.project_url("new/"), {**form, "preview": "1"})
    assert response.status_code == 200
    shown = shown_preview(response)
    assert "<strong>Steps</strong>" in shown
    assert f'href="/t/{world.slug}/issues/?assignee={world.owner}" class="mention"' in shown
    assert hidden_value(response, "idempotency_key") == key  # the same submission when it is sent
    assert "This field is required" not in text(response)  # a preview judges nothing: no title is fine
    assert "**Steps**" in text(response)  # the text is back in its box

    sent = client.post(world.project_url("new/"), {**form, "title": "Previewed first"})
    assert sent.status_code == 302
    assert flash(sent) == ["Created WEB-1."]
    again = client.post(world.project_url("new/"), {**form, "title": "Previewed first"})
    assert flash(again)[-1] == "This form was already submitted: it created WEB-1."


def test_previewing_an_edit_saves_nothing_and_keeps_the_version(world: World) -> None:
    new_issue(world, "Old title", description="old words")
    client = world.client_for(world.member)
    page = client.get(world.project_url("1/edit/"))
    version, base = hidden_value(page, "version"), hidden_value(page, "base")
    form = {"title": "New title", "priority": "medium", "version": version, "base": base, "description": "_new_"}
    with unchanged(world):
        response = client.post(world.project_url("1/edit/"), {**form, "preview": "1"})
    assert response.status_code == 200
    assert "<em>new</em>" in shown_preview(response)
    assert (hidden_value(response, "version"), hidden_value(response, "base")) == (version, base)
    assert client.post(world.project_url("1/edit/"), form).status_code == 302
    saved = load(world, 1)
    assert saved is not None
    assert (saved.title, saved.description) == ("New title", "_new_")


def test_previewing_a_comment_posts_nothing_and_keeps_the_forms_key(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    key = comment_form_key(client.get(world.project_url("1/")))
    form = {"body": "<script>alert(1)</script> *hi*", "idempotency_key": key}
    with unchanged(world):
        response = client.post(world.project_url("1/comments/"), {**form, "preview": "1"})
    assert response.status_code == 200
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt; <em>hi</em></p>" in shown_preview(response)
    assert comment_form_key(response) == key
    stream = comments.issue_stream(world.slug, "WEB", 1)
    assert comments.comment_page(stream=stream).comments == []
    assert client.post(world.project_url("1/comments/"), form).status_code == 302
    assert [c.body for c in comments.comment_page(stream=stream).comments] == [form["body"]]
    viewer = world.client_for(world.viewer)
    assert viewer.post(world.project_url("1/comments/"), {**form, "preview": "1"}).status_code == 403


def test_previewing_a_comment_edit_saves_nothing_and_an_overlong_text_says_so(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    client.post(world.project_url("1/comments/"), {"body": "first words"})
    stream = comments.issue_stream(world.slug, "WEB", 1)
    (comment,) = comments.comment_page(stream=stream).comments
    url = world.project_url(f"1/comments/{comments.comment_id(comment.key)}/edit/")
    with unchanged(world):
        response = client.post(url, {"body": "~~first~~ words", "version": "1", "preview": "1"})
        too_long = client.post(url, {"body": "a" * (PREVIEW_MAX + 1), "version": "1", "preview": "1"})
    assert "<s>first</s>" in shown_preview(response)
    assert hidden_value(response, "version") == "1"
    assert "Too long to preview: a text holds at most 10,000 characters; this one has 10,001." in shown_preview(
        too_long
    )
    (stored,) = comments.comment_page(stream=stream).comments
    assert stored.body == "first words"
