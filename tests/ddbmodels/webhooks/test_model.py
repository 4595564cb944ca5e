"""The webhooks table's keys and items: ids derived once, a delivery's id reversible, its webhook-id stable,
and what offboarding finds of a team (endpoints, tombstones, every endpoint's deliveries) and probes."""

from __future__ import annotations

from typing import Any

import pytest

from ddbmodels import webhooks
from ddbmodels.core import capacity, connection
from ddbmodels.core.keys import time_key
from ddbmodels.core.team_data import Shards, Team
from ddbmodels.tenants import declarations, reads
from tests.ddbmodels.webhooks.helpers import WHEN, put_delivery

EVENT = "2026-11-22T10:15:30.123Z#9f86d081"


def test_an_endpoint_id_is_derived_from_the_idempotency_key_and_looks_like_no_other() -> None:
    first = webhooks.endpoint_id_for("01JD0000000000000000000000")

    assert first == webhooks.endpoint_id_for("01JD0000000000000000000000")
    assert first != webhooks.endpoint_id_for("01JD0000000000000000000001")
    assert webhooks.ENDPOINT_ID_RE.match(first)
    with pytest.raises(ValueError, match="idempotency key"):
        webhooks.endpoint_id_for("")
    with pytest.raises(ValueError, match="invalid endpoint id"):
        webhooks.endpoint_key("acme", "x#y")


def test_a_delivery_id_is_its_event_key_without_punctuation_and_reads_back() -> None:
    delivery_id = webhooks.delivery_id_of(EVENT)

    assert delivery_id == "20261122101530123-9f86d081"
    assert webhooks.event_key_of(delivery_id) == EVENT
    assert webhooks.event_key_of("2026-11-22T10:15:30.123Z#9f86d081") is None
    assert webhooks.event_key_of("20261122101530123-9f86d08") is None


def test_a_webhook_id_is_the_same_for_an_endpoint_and_event_and_carries_no_dot() -> None:
    endpoint = webhooks.endpoint_id_for("k1")
    msg = webhooks.message_id(endpoint, EVENT)

    assert msg == webhooks.message_id(endpoint, EVENT)
    assert msg != webhooks.message_id(webhooks.endpoint_id_for("k2"), EVENT)
    assert msg.startswith("msg_")
    assert len(msg) == 28
    assert msg[4:].isalnum()


def test_the_due_key_spreads_deliveries_over_the_eight_shards_the_sweep_reads() -> None:
    endpoint = webhooks.endpoint_id_for("k1")
    keys = {webhooks.due_key(webhooks.endpoint_key("acme", endpoint), f"d#{n:04d}") for n in range(200)}

    assert keys == set(webhooks.due_keys())


def _table() -> str:
    return connection.table_name("webhooks")


def _put_endpoint(tenant: str, endpoint_id: str, *, status: str = webhooks.ACTIVE) -> None:
    item: dict[str, Any] = {
        "pk": {"S": webhooks.team_key(tenant)},
        "s": {"S": webhooks.endpoint_sort(endpoint_id)},
        "u": {"S": "https://example.com/hook"},
        "ev": {"SS": ["issue.created", "comment.created"]},
        "sc": {"S": "whsec_c2VjcmV0"},
        "st": {"S": status},
        "cb": {"S": "alice"},
        "ca": {"S": time_key(WHEN)},
        "v": {"N": "1"},
    }
    connection.client().put_item(TableName=_table(), Item=item)


@pytest.mark.ddblocal
def test_items_read_back_as_endpoints_and_deliveries(tenant: str) -> None:
    endpoint = webhooks.endpoint_id_for("k1")
    _put_endpoint(tenant, endpoint)
    put_delivery(tenant, endpoint, EVENT, pending=False)
    client = connection.client()
    stored = client.get_item(
        TableName=_table(), Key={"pk": {"S": webhooks.team_key(tenant)}, "s": {"S": webhooks.endpoint_sort(endpoint)}}
    )["Item"]
    sent = client.get_item(
        TableName=_table(),
        Key={"pk": {"S": webhooks.endpoint_key(tenant, endpoint)}, "s": {"S": webhooks.delivery_sort(EVENT)}},
    )["Item"]

    hook = webhooks.endpoint_of(tenant, stored)
    delivery = webhooks.delivery_of(tenant, sent)

    assert (hook.id, hook.events, hook.active, hook.version, hook.created_at) == (
        endpoint,
        ("comment.created", "issue.created"),
        True,
        1,
        WHEN,
    )
    assert (delivery.endpoint_id, delivery.event_key, delivery.status, delivery.attempts) == (
        endpoint,
        EVENT,
        webhooks.DELIVERED,
        1,
    )
    assert delivery.recent == (webhooks.Attempt(at=WHEN, code=204, ms=12),)
    assert delivery.id == "20261122101530123-9f86d081"


@pytest.mark.ddblocal
def test_offboarding_finds_endpoints_tombstones_and_every_endpoints_deliveries_the_team_partition_last(
    tenant: str,
) -> None:
    live, gone = webhooks.endpoint_id_for("k1"), webhooks.endpoint_id_for("k2")
    _put_endpoint(tenant, live)
    _put_endpoint(tenant, gone, status=webhooks.DELETED)
    put_delivery(tenant, live, EVENT, pending=True)
    put_delivery(tenant, gone, "2026-11-22T10:15:31.000Z#00000001", pending=False)
    _put_endpoint(f"{tenant}-other", live)
    (declared,) = webhooks.TEAM_DATA

    pages = list(declared.find(Team(tenant, Shards(scores=2, events=2)), _table()))

    keys = [(item["pk"]["S"], item["s"]["S"]) for page in pages for item in page]
    assert len(keys) == 4
    assert {pk for pk, _ in keys[:2]} == {webhooks.endpoint_key(tenant, live), webhooks.endpoint_key(tenant, gone)}
    assert {pk for pk, _ in keys[2:]} == {webhooks.team_key(tenant)}
    assert declarations.delete_order("webhooks") == 66


@pytest.mark.ddblocal
def test_a_team_whose_only_items_are_webhooks_still_holds_data_and_the_probe_is_one_query(tenant: str) -> None:
    (declared,) = webhooks.TEAM_DATA
    assert declared.probe is not None
    assert not reads.tenant_has_data(tenant, score_shards=2, event_shards=2)
    _put_endpoint(tenant, webhooks.endpoint_id_for("k1"), status=webhooks.DELETED)

    with capacity.measure() as meter:
        (probe,) = declared.probe(tenant, Shards(scores=2, events=2), _table())
        found = connection.client().query(**probe, Limit=1, ReturnConsumedCapacity="TOTAL")

    assert found["Count"] == 1
    assert meter.requests == 1
    assert meter.rcu == 0.5
    assert reads.tenant_has_data(tenant, score_shards=2, event_shards=2)
