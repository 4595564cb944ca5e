"""What a status change costs, as DynamoDB Local reports the page's writes (issue 18: ≤ 16, was 18)."""

from __future__ import annotations

import pytest

from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue, version_of

pytestmark = pytest.mark.ddblocal


def test_a_status_change_of_an_issue_with_six_title_words_and_two_labels_writes_15_wcu(world: World) -> None:
    new_issue(world, "crash when saving draft offline twice", labels=["bug", "ui"], assignee=world.member.username)
    client = world.client_for(world.member)
    with capacity.measure() as meter:
        response = client.post(world.project_url("1/status/"), {"to": "in_progress", "version": version_of(world, 1)})
    assert response.status_code == 302
    assert load(world, 1).status == "in_progress"  # type: ignore[union-attr]
    writes = {name: row.wcu for name, row in meter.by_pattern.items() if row.wcu}
    # the issue (1) + 4 list-index entries moved (8) + 2 label entries moved (4), and the change's event (2):
    # no word entry, no transaction (it was 20 on DynamoDB, 18 as Local reported the page)
    assert writes == {"issues.update": 13, "events.put": 2}
    assert meter.wcu == 15
