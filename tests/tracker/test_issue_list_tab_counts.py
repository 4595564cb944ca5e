"""The status tabs' counts are the project's: they show on its whole lists, not on a filtered one.

"Open 7" above a list of "label:bug" or "milestone:v1.2" reads as seven open bugs; the counts are the
project's (its counts refresh), so a filtered list shows the tabs without them.
"""

from __future__ import annotations

import re

import pytest

from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, text
from tracker.services.projects import project_counts_refresh


def _counts(world: World, q: str | None) -> list[str]:
    response = world.client_for(world.member).get(world.project_url(), {"q": q} if q else {})
    assert response.status_code == 200
    tabs = re.search(r'<nav class="tabs".*?</nav>', text(response), re.S)
    assert tabs is not None
    return re.findall(r'<span class="count">(\d+)</span>', tabs.group())


@pytest.mark.parametrize("q", ["label:bug", "assignee:member1", "is:open label:bug", "is:closed words"])
def test_a_filtered_list_shows_the_tabs_without_the_projects_counts(world: World, q: str) -> None:
    for n in range(3):
        new_issue(world, f"words {n}", labels=["bug"] if n == 0 else [])
    project_counts_refresh(tenant=world.slug, key=world.project_key)
    assert _counts(world, None) == ["3", "0", "0", "0"]  # the whole list: the project's counts
    assert _counts(world, "is:closed") == ["3", "0", "0", "0"]
    assert _counts(world, q.replace("member1", world.member.username)) == []
