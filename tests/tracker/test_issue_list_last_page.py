"""A filtered list's last page that finds none says so for that page, not for the whole list (review F9 residual).

A label's list asked for an assignee too checks the assignee on one page of the label's rows. When
the last page has none of that person's, earlier pages may have had some: "No open issues labelled
bug assigned to …" would be untrue there.
"""

from __future__ import annotations

from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, pager_link, references, text


def test_the_last_page_of_a_filtered_list_that_finds_none_says_none_on_this_page(world: World) -> None:
    new_issue(world, "the oldest bug, nobody's", labels=["bug"])
    mine = [int(new_issue(world, f"bug {n}", labels=["bug"], assignee=world.member.username).number) for n in range(25)]
    client = world.client_for(world.member)
    first = client.get(world.project_url(), {"q": f"label:bug assignee:{world.member.username}"})
    assert first.status_code == 200
    assert sorted(references(first)) == mine  # the first page: the 25 newest, all the member's
    further = pager_link(first, "next")
    assert further is not None
    last = client.get(world.project_url() + further)
    assert last.status_code == 200
    assert references(last) == []
    page = " ".join(text(last).split())
    assert f"No open issues labelled bug assigned to {world.member.username}." not in page
    assert (
        f"No open issue on this page (1 looked at) is labelled bug and assigned to {world.member.username}; "
        "that is the end of the list." in page
    )
    assert pager_link(last, "prev") is not None  # back to the page that had them
    assert pager_link(last, "next") is None


def test_a_filtered_list_of_one_page_that_finds_none_says_there_are_none(world: World) -> None:
    new_issue(world, "a bug, nobody's", labels=["bug"])
    response = world.client_for(world.member).get(
        world.project_url(), {"q": f"label:bug assignee:{world.member.username}"}
    )
    assert references(response) == []
    assert f"No open issues labelled bug assigned to {world.member.username}." in " ".join(text(response).split())
