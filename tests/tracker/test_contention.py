"""When every retry loses the race for a number, the user keeps their input and gets a clear answer."""

from __future__ import annotations

import pytest

from ddbmodels import issues
from ddbmodels.core.errors import SequenceContention
from tests.tracker.conftest import World


def test_a_create_that_never_wins_a_number_says_so_and_writes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def always_busy(**_: object) -> None:
        raise SequenceContention("gave up")

    monkeypatch.setattr(issues, "issue_create", always_busy)
    response = world.client_for(world.member).post(world.project_url("new/"), {"title": "Busy", "priority": "low"})
    assert response.status_code == 503
    assert "very busy" in response.content.decode()
    assert 'value="Busy"' in response.content.decode()
    monkeypatch.undo()
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == []
