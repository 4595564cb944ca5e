"""The end-user pages render for a member and do what they say."""

from __future__ import annotations

import re

from tests.tracker.conftest import World


def test_a_member_creates_an_issue_and_sees_its_number(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(world.project_url("new/"), {"title": "First bug", "priority": "high"})
    assert response.status_code == 302
    assert response["Location"] == world.project_url("1/")
    detail = client.get(response["Location"])
    assert detail.status_code == 200
    assert "WEB-1" in detail.content.decode()
    listing = client.get(world.project_url())
    assert re.search(r">WEB-1<", listing.content.decode())
