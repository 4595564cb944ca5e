"""The webhooks table: a team's endpoints (the URLs its owners registered) and each endpoint's deliveries.

Two kinds of partition, both named from the team:

    team partition      PK pk = "<team>#hooks"
        endpoint            SK s = "e#<endpoint id>"    u URL, ev events (string set), sc secret (``whsec_``…),
                                                        st active|disabled|deleted, dr description, dw why it
                                                        was disabled, fs failing since (time key, while its
                                                        deliveries fail), cb created by, ca / ua created /
                                                        updated at, v version (1 on create, + 1 a change),
                                                        h the registering API request's fingerprint, rk the
                                                        fence of the last edit (``endpoints.py``);
                                                        x expiry (TTL) on a deleted one only: the tombstone
                                                        outlives its deliveries (their days + 2)
    endpoint partition  PK pk = "<team>#hooks#<endpoint id>"
        delivery            SK s = "d#<event key>"      m webhook-id (``msg_`` + 24 base62 of sha256(endpoint
                                                        id + event key): the same on every attempt), ty event
                                                        type (``issue.created``…), p payload JSON (≤ 2 KB),
                                                        st pending|delivered|failed, at attempts made, al the
                                                        last 10 attempts [{t when, c answer code (0: none),
                                                        ms duration}], lc last code, ld last duration (ms),
                                                        le the last answer's first 512 bytes (or why none came),
                                                        da delivered at, na next attempt (time key), dk due
                                                        shard (only while pending), ca created at, x expiry
                                                        (TTL: created + the delivery days), rk the fence of
                                                        the request that last sent it again (``log.py``)

    GSI due (sparse, KEYS_ONLY + at): PK dk = "due#<crc32(pk + s) % 8>", SK na — the pending deliveries, by
        when they are due; a delivery leaves it when it is delivered or failed for good (REMOVE dk).

An endpoint's id is derived from the idempotency key of the request that created it (a form's ULID, an API
client's namespaced key: ``endpoint_id_for``), and the create is a PutItem ``attribute_not_exists``: a request
sent twice registers one endpoint. A delivery's sort key is the event's key (``events.new_sort_key``,
time-ordered): exactly one delivery per endpoint and event (PutItem ``attribute_not_exists``), the log
newest first is one Query in descending order.

Deleting an endpoint leaves a tombstone (st = deleted, its secret removed, a TTL after its deliveries'), so
the team partition always names every endpoint partition that may still hold deliveries: offboarding reads
the team partition, then each endpoint's partition (``team.py``). A deleted endpoint gets no new delivery
and is not listed.

Reads:
    the team's endpoints    Query pk = "<team>#hooks" — ≤ 10 live endpoints and their tombstones, ≈ 300 B
                            each: 0.5 RCU (1 consistent), one request; the site caches it per team
    an endpoint             GetItem — 0.5 RCU (1 consistent)
    the delivery log        Query pk = "<team>#hooks#<id>", descending, Limit 25 (+1 to know of a next page):
                            ≤ 2.5 KB a delivery → ≤ 64 KB, ≤ 8 RCU eventually consistent; a typical page ≈ 2 RCU
    due deliveries          Query due dk = "due#<n>", na <= now, Limit 200 (KEYS_ONLY + at): 0.5 RCU per
                            4 KB of keys, one request a shard, 8 shards (4 RCU a minute when idle)
Writes:
    register                PutItem ``attribute_not_exists(s)`` — 1 WCU
    edit, enable, disable   PutItem / UpdateItem conditioned on ``v`` — 1 WCU
    delete                  UpdateItem to the tombstone, conditioned on ``v`` — 1 WCU
    a delivery              PutItem ``attribute_not_exists(s)`` — 1 WCU per KB (≤ 3) + 1 due entry
    redeliver               UpdateItem ``SET st = pending, na, dk, rk`` where st <> pending and rk <> this request's
                            fence — 1–3 WCU + 1 due entry (refused: + a consistent GetItem, 1 RCU)

No hot key: an endpoint partition takes one write per event and attempt, the team partition only its
owners' clicks and a delivery's "failing since" marks; the due index is spread over 8 keys.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pynamodb.attributes import NumberAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import parse_time_key

KEY_ATTRIBUTES = ("pk", "s")
DUE_INDEX = "due"
DUE_SHARDS = 8
ENDPOINT_PREFIX = "e#"
DELIVERY_PREFIX = "d#"
ENDPOINTS_MAX = 10  # live endpoints a team may have (tombstones do not count)
URL_MAX = 2000
DESCRIPTION_MAX = 200
PAYLOAD_MAX = 2048  # bytes of a delivery's payload JSON
ATTEMPTS_KEPT = 10  # the attempts a delivery keeps in ``al`` (the count ``at`` goes on)
LOG_PAGE = 25
TOMBSTONE_EXTRA_DAYS = 2  # a deleted endpoint's item outlives its deliveries by these days

ACTIVE, DISABLED, DELETED = "active", "disabled", "deleted"
ENDPOINT_STATES = (ACTIVE, DISABLED, DELETED)
PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
DELIVERY_STATES = (PENDING, DELIVERED, FAILED)

ENDPOINT_ID_RE = re.compile(r"^[0-9a-f]{24}$")
# An event's sort key (ddbmodels.events.new_sort_key): "2026-11-22T10:15:30.123Z#9f86d081".
EVENT_KEY_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z#([0-9a-f]{8})$")
# A delivery's id in URLs: the event key without its punctuation, "20261122101530123-9f86d081".
DELIVERY_ID_RE = re.compile(r"^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{3})-([0-9a-f]{8})$")
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class DueIndex(GlobalSecondaryIndex["WebhookItem"]):
    """Sparse, KEYS_ONLY + at: the pending deliveries by shard, soonest due first."""

    class Meta:
        index_name = DUE_INDEX
        projection = IncludeProjection(["at"])

    due = UnicodeAttribute(hash_key=True, attr_name="dk")
    next_attempt = UnicodeAttribute(range_key=True, attr_name="na")


@register("webhooks")
class WebhookItem(Model):
    """An endpoint or a delivery (raw attributes: see the module docstring; reads and writes use the client)."""

    class Meta:
        table_name = "webhooks"  # the base name: register() prefixes it

    key = UnicodeAttribute(hash_key=True, attr_name="pk")
    sort = UnicodeAttribute(range_key=True, attr_name="s")
    due = UnicodeAttribute(attr_name="dk", null=True)
    next_attempt = UnicodeAttribute(attr_name="na", null=True)
    attempts = NumberAttribute(attr_name="at", null=True)
    expires = TTLAttribute(attr_name="x", null=True)

    due_index = DueIndex()


@dataclass(frozen=True)
class EndpointItem:
    """A registered endpoint as pages and the API see it."""

    tenant: str
    id: str
    url: str
    events: tuple[str, ...]
    secret: str
    status: str
    description: str
    created_by: str
    created_at: datetime
    updated_at: datetime
    version: int
    failing_since: datetime | None = None
    disabled_why: str = ""
    fingerprint: str = ""  # the registering API request's (``h``): the same key with another request is refused

    @property
    def active(self) -> bool:
        return self.status == ACTIVE


@dataclass(frozen=True)
class Attempt:
    """One attempt of a delivery: when, the answer's code (0: no answer), how long it took."""

    at: datetime
    code: int
    ms: int


@dataclass(frozen=True)
class DeliveryItem:
    """One event's delivery to one endpoint, with its attempts so far."""

    tenant: str
    endpoint_id: str
    event_key: str
    message_id: str
    type: str
    payload: str
    status: str
    attempts: int
    created_at: datetime
    recent: tuple[Attempt, ...] = ()
    last_code: int | None = None
    last_ms: int | None = None
    last_answer: str = ""  # the last answer's first bytes, or why no answer came ("no answer within 15 s")
    delivered_at: datetime | None = None
    next_attempt: datetime | None = None

    @property
    def id(self) -> str:
        """The delivery's id in URLs (``delivery_id_of``)."""
        return delivery_id_of(self.event_key)


def team_key(tenant: str) -> str:
    """The team partition: every endpoint of the team, tombstones included."""
    return f"{tenant}#hooks"


def endpoint_key(tenant: str, endpoint_id: str) -> str:
    """An endpoint's partition: its deliveries."""
    return f"{tenant}#hooks#{check_endpoint_id(endpoint_id)}"


def endpoint_sort(endpoint_id: str) -> str:
    return f"{ENDPOINT_PREFIX}{check_endpoint_id(endpoint_id)}"


def delivery_sort(event_key: str) -> str:
    return f"{DELIVERY_PREFIX}{check_event_key(event_key)}"


def check_endpoint_id(endpoint_id: str) -> str:
    if not ENDPOINT_ID_RE.match(endpoint_id):
        raise ValueError(f"invalid endpoint id {endpoint_id!r}")
    return endpoint_id


def check_event_key(event_key: str) -> str:
    if not EVENT_KEY_RE.match(event_key):
        raise ValueError(f"invalid event key {event_key!r}")
    return event_key


def endpoint_id_for(key: str) -> str:
    """The id of the endpoint a request with idempotency key ``key`` registers: 24 hex of its sha256."""
    if not key:
        raise ValueError("an endpoint's id needs the idempotency key of the request registering it")
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def delivery_id_of(event_key: str) -> str:
    """``2026-11-22T10:15:30.123Z#9f86d081`` → ``20261122101530123-9f86d081`` (URL-safe, reversible)."""
    match = EVENT_KEY_RE.match(event_key)
    if not match:
        raise ValueError(f"invalid event key {event_key!r}")
    *time, token = match.groups()
    return f"{''.join(time)}-{token}"


def event_key_of(delivery_id: str) -> str | None:
    """The event key of a delivery id (``delivery_id_of`` reversed); None for anything else."""
    match = DELIVERY_ID_RE.match(delivery_id)
    if not match:
        return None
    y, mo, d, h, mi, s, ms, token = match.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{s}.{ms}Z#{token}"


def message_id(endpoint_id: str, event_key: str) -> str:
    """The ``webhook-id`` of a delivery: ``msg_`` + 24 base62 characters of sha256(endpoint id + event key).

    The same for every attempt (receivers deduplicate on it); no "." (Standard Webhooks' signed content
    joins id, timestamp and body with dots).
    """
    value = int.from_bytes(hashlib.sha256(f"{endpoint_id}{event_key}".encode()).digest(), "big")
    chars = []
    for _ in range(24):
        value, digit = divmod(value, 62)
        chars.append(_BASE62[digit])
    return "msg_" + "".join(chars)


def due_key(pk: str, sort: str) -> str:
    """The due index's key of a pending delivery: ``due#<crc32(pk + s) % 8>`` (the key is global: spread)."""
    return f"due#{zlib.crc32(f'{pk}{sort}'.encode()) % DUE_SHARDS}"


def due_keys() -> list[str]:
    """Every due shard, for the sweep that reads them all."""
    return [f"due#{n}" for n in range(DUE_SHARDS)]


def _time(item: dict[str, Any], name: str) -> datetime | None:
    value = item.get(name, {}).get("S")
    return parse_time_key(value) if value else None


def endpoint_of(tenant: str, item: dict[str, Any]) -> EndpointItem:
    """An endpoint from its stored item (DynamoDB JSON)."""
    created = _time(item, "ca")
    assert created is not None, "an endpoint is written with its creation time"
    return EndpointItem(
        tenant=tenant,
        id=item["s"]["S"].removeprefix(ENDPOINT_PREFIX),
        url=item.get("u", {}).get("S", ""),
        events=tuple(sorted(item.get("ev", {}).get("SS", []))),
        secret=item.get("sc", {}).get("S", ""),
        status=item.get("st", {}).get("S", ACTIVE),
        description=item.get("dr", {}).get("S", ""),
        created_by=item.get("cb", {}).get("S", ""),
        created_at=created,
        updated_at=_time(item, "ua") or created,
        version=int(item.get("v", {}).get("N", "1")),
        failing_since=_time(item, "fs"),
        disabled_why=item.get("dw", {}).get("S", ""),
        fingerprint=item.get("h", {}).get("S", ""),
    )


def delivery_of(tenant: str, item: dict[str, Any]) -> DeliveryItem:
    """A delivery from its stored item (DynamoDB JSON)."""
    event_key = item["s"]["S"].removeprefix(DELIVERY_PREFIX)
    recent = tuple(
        Attempt(
            at=parse_time_key(entry["M"]["t"]["S"]),
            code=int(entry["M"].get("c", {}).get("N", "0")),
            ms=int(entry["M"].get("ms", {}).get("N", "0")),
        )
        for entry in item.get("al", {}).get("L", [])
    )
    last_code = item.get("lc", {}).get("N")
    last_ms = item.get("ld", {}).get("N")
    return DeliveryItem(
        tenant=tenant,
        endpoint_id=item["pk"]["S"].rpartition("#")[2],
        event_key=event_key,
        message_id=item.get("m", {}).get("S", ""),
        type=item.get("ty", {}).get("S", ""),
        payload=item.get("p", {}).get("S", ""),
        status=item.get("st", {}).get("S", PENDING),
        attempts=int(item.get("at", {}).get("N", "0")),
        created_at=_time(item, "ca") or parse_time_key(event_key),
        recent=recent,
        last_code=None if last_code is None else int(last_code),
        last_ms=None if last_ms is None else int(last_ms),
        last_answer=item.get("le", {}).get("S", ""),
        delivered_at=_time(item, "da"),
        next_attempt=_time(item, "na"),
    )
