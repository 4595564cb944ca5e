"""Offboarding exports and deletes a team's webhooks: its endpoints (a deleted one's tombstone too) and every
endpoint's deliveries, and no other team's."""

from __future__ import annotations

import gzip
import io
import json
from datetime import timedelta
from pathlib import Path

from django.core.management import call_command

from ddbmodels import webhooks
from ddbmodels.core import connection
from ddbmodels.core.keys import utcnow
from ddbmodels.tenants import reads as tenant_reads
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.conftest import World


def populate(world: World) -> None:
    slug = world.slug
    endpoints = []
    for key in ("k1", "k2"):
        endpoint, _ = webhooks.endpoint_put(
            slug,
            webhooks.endpoint_id_for(key),
            url="https://ci.example.com/hook",
            events=["issue.created"],
            secret="whsec_c2VjcmV0",
            description="",
            created_by=world.owner.username,
        )
        endpoints.append(endpoint)
    put_delivery(slug, endpoints[0].id, event_key(1), pending=False)
    put_delivery(slug, endpoints[0].id, event_key(2), pending=True)
    put_delivery(slug, endpoints[1].id, event_key(3), pending=False)
    webhooks.endpoint_tombstone(slug, endpoints[1].id, expected_version=1, expires=utcnow() + timedelta(days=32))


def stored(slug: str) -> int:
    """The team's webhooks items, counted by a Scan (the test's check, not how offboarding finds them)."""
    client, table, count = connection.client(), connection.table_name("webhooks"), 0
    request = {
        "TableName": table,
        "FilterExpression": "begins_with(pk, :p)",
        "ExpressionAttributeValues": {":p": {"S": f"{slug}#hooks"}},
    }
    while True:
        page = client.scan(**request)
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_offboarding_deletes_the_teams_webhooks_and_deliveries_and_no_other_teams(
    world: World, other_world: World, archive_dir: Path
) -> None:
    populate(world)
    populate(other_world)
    assert stored(world.slug) == 5  # two endpoints (one a tombstone), three deliveries
    others = stored(other_world.slug)

    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    report = json.loads(out.getvalue())

    assert report["status"] == "done"
    assert report["result"]["exported"]["by_part"]["webhooks"] == 5
    assert stored(world.slug) == 0
    assert stored(other_world.slug) == others
    assert not tenant_reads.tenant_has_data(world.slug, score_shards=1, event_shards=1)


def test_the_export_holds_no_signing_secret_and_its_manifest_says_so(world: World, archive_dir: Path) -> None:
    """The team's receivers may still trust their secrets after offboarding: the export (kept 30 days) must not let
    whoever holds it sign webhooks they accept. Review 22: R22-6."""
    populate(world)

    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=io.StringIO())

    files = [path for path in archive_dir.rglob("*") if path.is_file()]
    contents = {path.name: path.read_bytes() for path in files}
    plain = {name: gzip.decompress(data) if name.endswith(".gz") else data for name, data in contents.items()}
    assert "webhooks.jsonl.gz" in plain
    assert [name for name, data in plain.items() if b"whsec_" in data] == []
    endpoints = [
        item
        for line in plain["webhooks.jsonl.gz"].splitlines()
        if (item := json.loads(line)["Item"])["s"]["S"].startswith("e#")
    ]
    assert len(endpoints) == 2
    assert all("sc" not in item for item in endpoints)
    assert {e["u"]["S"] for e in endpoints if "u" in e} == {"https://ci.example.com/hook"}  # the rest is kept
    [manifest] = [json.loads(data) for name, data in plain.items() if name == "manifest.json"]
    [part] = [p for p in manifest["parts"] if p["part"] == "webhooks"]
    assert "signing secret" in part["redacted"]
