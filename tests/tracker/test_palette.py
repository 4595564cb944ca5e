"""Go to (/t/<team>/go/): the command palette's JSON and the same results as a page without JavaScript.

An issue key is one GetItem; projects come from the cached list; words from the search engine and one
BatchGetItem of at most five rows; the actions link only to pages the URLconf has; another team is a 404.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ddbmodels import issues as ddb_issues
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, text
from tracker.models import Membership
from tracker.search import indexing
from tracker.services import preferences


def go(world: World, q: str, *, who: str = "member", json_format: bool = True) -> Any:
    client = world.client_for(getattr(world, who))
    params = {"q": q, **({"format": "json"} if json_format else {})}
    return client.get(world.url("go/"), params)


def results(world: World, q: str, **kwargs: Any) -> list[dict[str, str]]:
    response = go(world, q, **kwargs)
    assert response.status_code == 200, text(response)[:300]
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)["results"]


def test_an_issue_key_is_one_getitem_and_names_the_issue(world: World) -> None:
    new_issue(world, "Checkout button is grey")
    response = go(world, " web-1 ")
    data = json.loads(response.content)
    assert data["results"] == [
        {
            "kind": "issue",
            "label": "WEB-1 Checkout button is grey",
            "hint": "Issue",
            "url": f"/t/{world.slug}/p/WEB/1/",
        }
    ]
    meter = response.wsgi_request.ddb_capacity
    assert (meter.requests, meter.rcu) == (1, 0.5)  # the GetItem, and nothing else
    missing = json.loads(go(world, "WEB-99").content)
    assert missing["results"] == []
    assert missing["missing"] == "There is no issue WEB-99."


def test_projects_and_actions_match_what_is_typed(world: World) -> None:
    ddb_issues.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    labels = [r["label"] for r in results(world, "")]
    assert labels[:2] == ["API Public API", "WEB Website"]  # projects first
    assert {"New issue", "Inbox", "Team"} <= set(labels)
    assert results(world, "webs")[0]["label"] == "WEB Website"
    inbox = results(world, "inbox")
    assert inbox[0] == {"kind": "action", "label": "Inbox", "hint": "Page", "url": f"/t/{world.slug}/inbox/"}
    assert inbox[-1]["kind"] == "search"  # words also offer the search page
    assert inbox[-1]["url"] == f"/t/{world.slug}/issues/?q=inbox"
    mine = next(r for r in results(world, "my issues") if r["label"] == "My issues")
    assert mine["url"] == f"/t/{world.slug}/issues/?q=is%3Aopen+assignee%3A%40me"
    # a viewer is offered no "New issue" (its page would be a 403)
    assert not [r for r in results(world, "new", who="viewer") if r["label"].startswith("New issue")]
    assert [r for r in results(world, "new") if r["label"].startswith("New issue")]


@pytest.mark.parametrize("q", ["", "web"])
def test_every_action_offered_is_a_page_that_answers(world: World, q: str) -> None:
    client = world.client_for(world.member)
    offered = results(world, q)
    assert len(offered) <= 12
    if q:  # a project's own pages: at least its new-issue form (its board and milestones once they exist)
        assert "New issue · WEB" in [r["label"] for r in offered]
    for result in offered:
        response = client.get(result["url"], follow=True)  # "New issue" with one project: its form
        assert response.status_code == 200, (result, response.status_code)


def test_words_find_issues_through_the_search_with_one_small_batch(world: World) -> None:
    for n in range(7):
        indexing.index_issue_item(new_issue(world, f"Quokka migration step {n}"))
    indexing.index_issue_item(new_issue(world, "Unrelated chore"))
    response = go(world, "quokka")
    found = [r for r in json.loads(response.content)["results"] if r["kind"] == "issue"]
    assert len(found) == 5  # SEARCH_SIZE: a small page, the rest on the search page
    assert all("Quokka" in r["label"] for r in found)
    batch = response.wsgi_request.ddb_capacity.by_pattern["issues.get_many"]
    assert (batch.requests, batch.rcu) == (1, 2.5)  # one BatchGetItem, 0.5 RCU a row


def test_without_javascript_the_page_lists_the_results_and_a_key_goes_to_the_issue(world: World) -> None:
    new_issue(world, "Checkout button is grey")
    page = go(world, "team", json_format=False)
    assert page.status_code == 200
    body = text(page)
    assert '<input id="go-page-q" type="search" name="q" value="team"' in body
    assert re.search(rf'<a href="/t/{world.slug}/team/">Team</a>', body)
    jump = go(world, "WEB-1", json_format=False)
    assert jump.status_code == 302
    assert jump["Location"] == f"/t/{world.slug}/p/WEB/1/"
    missing = go(world, "WEB-7", json_format=False)
    assert missing.status_code == 404
    assert "There is no issue WEB-7" in text(missing)
    # the header's "Go to" box on every team page is this page's form
    header = text(world.client_for(world.viewer).get(world.url()))
    assert f'<form class="goto" method="get" action="/t/{world.slug}/go/" role="search" data-palette>' in header


def test_another_team_is_a_404_and_bad_input_is_cut_not_trusted(world: World, other_world: World) -> None:
    indexing.index_issue_item(new_issue(other_world, "Their secret"))
    new_issue(world, "Our own issue")  # WEB-1 here too: a key the other team's search answer would name
    assert [r["label"] for r in results(other_world, "secret") if r["kind"] == "issue"] == ["WEB-1 Their secret"]
    assert not [r for r in results(world, "secret") if r["kind"] == "issue"]  # R2-14: their words find nothing here
    outsider = world.client_for(world.member)
    assert outsider.get(other_world.url("go/"), {"q": "WEB-1", "format": "json"}).status_code == 404
    assert outsider.get(other_world.url("go/")).status_code == 404
    assert [r["label"] for r in results(world, "WEB-1")] == ["WEB-1 Our own issue"]  # one's own team's WEB-1
    long = results(world, "x" * 5000)
    assert long[-1]["url"].endswith("?q=" + "x" * 200)  # cut to 200 characters
    assert world.client_for(world.member).post(world.url("go/"), {"q": "x"}).status_code == 405


def test_saved_views_are_found_by_name_and_only_ones_own_or_shared(world: World) -> None:
    membership = Membership.objects.get(user=world.member, tenant=world.tenant)
    view, _ = preferences.view_save(membership=membership, view_id=None, name="Open bugs", query="is:open label:bug")
    found = [r for r in results(world, "bugs") if r["kind"] == "view"]
    assert found == [
        {"kind": "view", "label": "Open bugs", "hint": "Your view", "url": f"/t/{world.slug}/views/{view.id}/"}
    ]
    assert world.client_for(world.member).get(found[0]["url"]).status_code == 302  # to the list with its query
    assert not [r for r in results(world, "bugs", who="owner") if r["kind"] == "view"]  # not shared: not theirs


@pytest.mark.parametrize("json_format", [True, False])
def test_the_answers_are_kept_by_no_cache(world: World, json_format: bool) -> None:
    """R2-13: a team's issue titles and view names: private, never stored (as autocomplete and preview)."""
    new_issue(world, "Checkout button is grey")
    for q in ("", "team", "web-1"):
        response = go(world, q, json_format=json_format)
        assert response["Cache-Control"] == "private, no-store", (q, response.status_code)
    assert go(world, "WEB-7", json_format=False)["Cache-Control"] == "private, no-store"  # the 404 page too
