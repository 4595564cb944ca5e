"""The issue lists as people use them: on a project of 1,200 issues, every list is one Query of about one page.

The project is loaded in bulk (``issues.issues_put_many``), the way an import would: 1,200 issues
of which 12 are open, a few assigned to the member, some labelled ``bug``, all with titles to search.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest

from ddbmodels import issues
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem, collection_key
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.inbox_helpers import without_header
from tracker.search import indexing as search_indexing

TOTAL = 1200
OPEN = set(range(1189, 1201))  # the 12 newest are open; the rest are closed
MINE = {1190, 1195, 1200, 700}  # the member's: three open, one closed
BUGS = {1191, 1192, 1199, 3, 500}  # labelled bug: three open, two closed


def _load(world: World) -> None:
    now = utcnow()

    def issue(n: int) -> IssueItem:
        when = now - timedelta(minutes=TOTAL - n)
        return IssueItem(
            pk=collection_key(world.slug, "WEB"),
            number=n,
            title=f"{'Checkout fails on Safari' if n in (1192, 40) else 'Routine task'} number {n}",
            status="open" if n in OPEN else "closed",
            priority="medium",
            assignee=world.member.username if n in MINE else None,
            reporter=world.owner.username,
            labels={"bug"} if n in BUGS else None,
            created_at=when,
            updated_at=when,
        )

    issues.issues_put_many(issue(n) for n in range(1, TOTAL + 1))
    search_indexing.rebuild(tenant=world.slug)  # a bulk load records no changes: its documents are built


@pytest.fixture
def big(world: World) -> World:
    _load(world)
    return world


def refs(response: object) -> list[str]:
    return re.findall(r'<td data-label="Issue"><a href="[^"]+">([A-Z]+-\d+)</a>', text(response))  # type: ignore[arg-type]


def list_cost(response: object) -> tuple[int, float]:
    """DynamoDB requests and RCU the page spent on its list (issues.list / issues.search)."""
    meter = response.wsgi_request.ddb_capacity  # type: ignore[attr-defined]
    used = [meter.by_pattern[name] for name in ("issues.list", "issues.search") if name in meter.by_pattern]
    return sum(t.requests for t in used), sum(t.rcu for t in used)


def test_the_open_list_of_a_1200_issue_project_is_one_query_of_one_page(big: World) -> None:
    response = big.client_for(big.viewer).get(big.project_url())
    assert response.status_code == 200
    assert refs(response) == [f"WEB-{n}" for n in sorted(OPEN, reverse=True)]
    requests, rcu = list_cost(response)
    assert requests == 1
    assert rcu <= 1.0
    page_meter = response.wsgi_request.ddb_capacity
    # + the project and the team's label catalogue (the chips' colours), both cached after the first view; the
    # header's reads (unread count, Views menu) set apart as in test_cache
    assert sum(without_header(page_meter).values()) <= 3


def test_my_issues_list_my_open_issues_across_the_team(big: World) -> None:
    client = big.client_for(big.member)
    response = client.get(big.url("issues/"), {"q": "is:open assignee:@me"})
    assert refs(response) == ["WEB-1200", "WEB-1195", "WEB-1190"]
    assert "My issues" in text(response)
    assert list_cost(response)[0] == 1
    closed = client.get(big.url("issues/"), {"assignee": "me", "status": "closed"})
    assert refs(closed) == ["WEB-700"]


def test_the_label_list_shows_the_open_bugs_in_one_query(big: World) -> None:
    response = big.client_for(big.member).get(big.project_url(), {"q": "label:bug"})
    assert refs(response) == ["WEB-1199", "WEB-1192", "WEB-1191"]
    requests, rcu = list_cost(response)
    assert requests == 1
    assert rcu <= 1.0
    closed = big.client_for(big.member).get(big.project_url(), {"q": "is:closed label:bug"})
    assert refs(closed) == ["WEB-500", "WEB-3"]


def test_a_search_finds_titles_by_their_words_in_at_most_three_requests(big: World) -> None:
    response = big.client_for(big.member).get(big.project_url(), {"q": "safari checkout"})
    assert refs(response) == ["WEB-1192", "WEB-40"]
    requests, rcu = list_cost(response)
    assert requests <= 3
    assert rcu <= 1.0
    open_only = big.client_for(big.member).get(big.url("issues/"), {"q": "is:open safari"})
    assert refs(open_only) == ["WEB-1192"]


def test_a_reference_jumps_to_its_issue(big: World) -> None:
    client = big.client_for(big.viewer)
    response = client.get(big.url("issues/"), {"q": "web-1192"})
    assert response.status_code == 302
    assert response["Location"] == big.project_url("1192/")
    assert client.get(big.project_url(), {"q": "#15"})["Location"] == big.project_url("15/")
    assert client.get(big.project_url(), {"q": "15"})["Location"] == big.project_url("15/")
    missing = client.get(big.project_url(), {"q": "WEB-5000"})
    assert missing.status_code == 400
    assert "There is no issue WEB-5000." in text(missing)
    other_team = client.get(big.url("issues/"), {"q": "ZZZ-1"})
    assert other_team.status_code == 400


def test_sorting_by_last_update_and_oldest_first(big: World) -> None:
    client = big.client_for(big.member)
    issue = issues.issue_get(tenant=big.slug, project_key="WEB", number=1189, consistent=True)
    assert issue is not None
    issues.issue_update(issue, title="Touched", description="", priority="high", assignee=None, labels=[])
    updated = client.get(big.project_url(), {"q": "sort:updated"})
    assert refs(updated)[:2] == ["WEB-1189", "WEB-1200"]
    oldest = client.get(big.project_url(), {"sort": "oldest"})
    assert refs(oldest)[:2] == ["WEB-1189", "WEB-1190"]


def test_the_query_box_holds_what_was_asked_and_tabs_keep_the_other_filters(big: World) -> None:
    response = big.client_for(big.member).get(big.project_url(), {"q": "label:bug"})
    page = text(response)
    assert 'value="label:bug"' in page  # the list's own "is:open" is the active tab, not text to delete
    assert '<a href="?q=is%3Aclosed+label%3Abug">Closed' in page
    assert '<a href="?q=is%3Aopen+label%3Abug" class="active" aria-current="page">Open' in page


def test_the_default_list_leaves_the_box_empty_and_clear_goes_back_to_it(big: World) -> None:
    client = big.client_for(big.member)
    default = text(client.get(big.project_url()))
    assert 'name="q" value=""' in default  # not "is:open sort:newest", which a typed word would be glued to
    assert ">Clear</a>" not in default
    asked = text(client.get(big.project_url(), {"q": "is:closed sort:oldest"}))
    assert 'name="q" value="is:closed sort:oldest"' in asked
    assert '<a href="?">Clear</a>' in asked
    assert 'name="q" value=""' in text(client.get(big.project_url() + "?"))  # where Clear leads


@pytest.mark.parametrize("query", ["is:nothing", "label:<b>", "assignee:a#b", "sort:sideways", "label:"])
def test_a_filter_it_does_not_understand_is_named_on_the_list_which_still_shows(big: World, query: str) -> None:
    response = big.client_for(big.member).get(big.project_url(), {"q": query})
    assert response.status_code == 200
    page = text(response)
    error = re.search(r'<p class="error" role="alert" id="issue-q-error">(.*?)</p>', page, re.S)
    assert error is not None
    assert f"“{query}”" in html.unescape(error.group(1))  # the token, as typed (escaped)
    assert "<b>" not in page
    assert 'aria-invalid="true"' in page
    assert refs(response) == [f"WEB-{n}" for n in sorted(OPEN, reverse=True)]  # the list without it


def test_a_word_run_into_a_filter_is_named_and_taken_apart_for_one_click(big: World) -> None:
    response = big.client_for(big.member).get(big.project_url(), {"q": "sort:updateddeploy"})
    assert response.status_code == 200  # was a 400 page with no list
    page = text(response)
    assert "“sort:updateddeploy” is not a sort this list knows" in page
    assert 'Did you mean <a href="?q=sort%3Aupdated+deploy">sort:updated deploy</a>?' in page
    assert 'value="sort:updateddeploy"' in page  # left as typed, to be fixed
    assert len(refs(response)) == len(OPEN)
    both = big.client_for(big.member).get(big.project_url(), {"q": "is:closedsafari label:bug", "sort": "nope"})
    page = text(both)
    assert "“is:closedsafari” is not a status" in page
    assert "“sort=nope” is not a sort" in page
    assert refs(both) == ["WEB-1199", "WEB-1192", "WEB-1191"]  # label:bug still applies


def test_the_team_list_never_shows_another_teams_issues(big: World, make_world: object) -> None:
    other = make_world()  # type: ignore[operator]
    issues.issue_create(tenant=other.slug, project_key="WEB", title="Theirs", reporter="x", labels=["bug"])
    mine = big.client_for(big.member).get(big.url("issues/"), {"q": "label:bug"})
    assert "Theirs" not in text(mine)
    theirs = other.client_for(other.member).get(other.url("issues/"), {"q": "label:bug"})
    assert refs(theirs) == ["WEB-1"]
    assert big.client_for(big.member).get(other.url("issues/")).status_code == 404
