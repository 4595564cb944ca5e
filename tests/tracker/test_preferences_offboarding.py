"""Offboarding deletes a team's saved views (its own partition and every person's) and notification settings."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core import connection
from ddbmodels.tenants import reads as tenant_reads
from tests.tracker.conftest import World


def populate(world: World) -> None:
    slug = world.slug
    view, _ = preferences.view_save(slug, world.member.username, view_id=new_attachment_id(), name="Bugs", query="")
    preferences.view_change(slug, world.member.username, view.id, preferences.ViewEdit(1, shared=True))
    preferences.view_save(slug, world.viewer.username, view_id=new_attachment_id(), name="Mine", query="is:closed")
    preferences.notify_set(slug, world.viewer.username, level="watching", email=False, expected_version=0)


def stored(slug: str) -> int:
    """The team's preferences items, counted by a Scan (the test's check, not how offboarding finds them)."""
    client, table, count = connection.client(), connection.table_name("preferences"), 0
    request = {
        "TableName": table,
        "FilterExpression": "begins_with(pk, :p)",
        "ExpressionAttributeValues": {":p": {"S": f"{slug}#"}},
    }
    while True:
        page = client.scan(**request)
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_offboarding_deletes_the_teams_views_and_settings_and_no_other_teams(
    world: World, other_world: World, archive_dir: Path
) -> None:
    populate(world)
    populate(other_world)
    assert stored(world.slug) == 6  # the team: 2 people, the shared copy, the settings; each person: a view
    others = stored(other_world.slug)

    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    report = json.loads(out.getvalue())

    assert report["status"] == "done"
    assert report["result"]["exported"]["by_part"]["preferences"] == 6
    assert stored(world.slug) == 0
    assert stored(other_world.slug) == others
    assert not tenant_reads.tenant_has_data(world.slug, score_shards=1, event_shards=1)
