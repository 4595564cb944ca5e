"""Review F17 residual: milestones made before names were claimed get their claim from ``manage.py upgrade_search
--check-milestones``; from then on a create of their name racing the list read is refused by the claim."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from ddbmodels import milestones
from ddbmodels.core import connection
from ddbmodels.milestones import writes
from tests.tracker.conftest import World
from tests.tracker.test_milestones_pages import _listed, _milestone


def _drop_claim(milestone: milestones.MilestoneItem) -> None:
    """As a milestone made before claims existed: its claim item is not there."""
    connection.client().delete_item(
        TableName=milestones.MilestoneItem.Meta.table_name,
        Key={"pk": {"S": milestone.pk}, "m": {"S": "name#" + milestone.name.casefold()}},
    )


def _check(*options: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("upgrade_search", "--check-milestones", "--json", *options, stdout=out)
    return json.loads(out.getvalue()[out.getvalue().index("{") :])["result"]


def test_the_milestones_check_writes_the_missing_name_claims(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    old, kept = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    _drop_claim(old)
    monkeypatch.setattr(writes, "milestone_list", lambda **kw: [])  # a racing create: its list read found none
    assert milestones.milestone_create(  # without its claim the old name is taken a second time
        tenant=world.slug, project_key="WEB", name="V1.2", due=None, created_by="x"
    )[1]
    monkeypatch.undo()
    twice = [m for m in _listed(world) if m.name.casefold() == "v1.2"]
    assert len(twice) == 2
    shared = _check()[f"{world.slug}/WEB"]  # the old one's name is claimed by the second: listed, not changed
    assert (shared["written"], shared["conflicts"]) == (0, ["v1.2"])
    assert len([m for m in _listed(world) if m.name.casefold() == "v1.2"]) == 2
    for extra in twice[1:]:
        extra.delete()  # the race's second v1.2 (shown above) removed; the old one has no claim again
    _drop_claim(old)
    result = _check()[f"{world.slug}/WEB"]
    assert result == {"milestones": 2, "claimed": 1, "written": 1, "conflicts": []}
    assert kept.name == "v1.3"
    monkeypatch.setattr(writes, "milestone_list", lambda **kw: [])
    with pytest.raises(milestones.NameTaken):  # claimed now: the same race is refused
        milestones.milestone_create(tenant=world.slug, project_key="WEB", name="V1.2", due=None, created_by="x")
    monkeypatch.undo()
    assert _check()[f"{world.slug}/WEB"] == {"milestones": 2, "claimed": 2, "written": 0, "conflicts": []}
