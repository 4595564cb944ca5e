"""The orders table: a tenant's add-on orders by time, numbered globally by the orders counter.

    PK  c  = the customer: the tenant slug
    SK  t  = "2026-11-22T10:15:30.123Z#000000000042": UTC with milliseconds, then the order
             number (15 digits), so keys are unique and sort by time as plain strings
        n  = the order number (global, from ``counters``), g = the time shard (below),
        p / q / dm = product, quantity, delivery method, st = status, by = who placed it

Sorted by time: a customer's orders are one item collection sorted by time, so "this tenant's orders
between two dates" is one Query with ``t BETWEEN``. Across *all* customers the index ``by_time``
gives one sort order: its partition key is a constant — write-sharded with a
calculated suffix, ``g = "orders#<number mod N>"``, so the writes spread evenly over N keys
instead of one hot partition — and its sort key is ``t``. "Last 7 days", "latest 100" and
"oldest 100" are then N Queries (one per shard, ``ScanIndexForward`` and ``Limit``) merged by
``t``. Reading more shards than were written is harmless (the extra keys are empty), so
ORDER_SHARDS may be raised later; lowering it would hide the orders of the dropped shards.

Look-up by number is the index ``by_number`` (PK ``n``, SK ``c``, KEYS_ONLY): a tenant asks
for ``n = :number AND c = :tenant``, so another tenant's order is not found *by the key
itself*, and staff ask for ``n`` alone. Numbers are spread across partitions by nature; the
entries are keys only, and a status change (a non-key attribute) never rewrites them.

Cost of one order ≤ 1 KB: the PutItem is 1 WCU + 1 WCU (``by_time``, ALL) + 1 WCU
(``by_number``); a status change is 1 WCU + 1 WCU (``by_time``).

    place (atomic, default)    UpdateItem counter ``ADD 1`` + PutItem order: 4 WCU; a failed put
                               leaves a gap (``GapLeft``; ``patterns.counters``)
    place (gapless)            GetItem counter (consistent) + TransactWriteItems [counter if unchanged,
                               order]: 1 RCU + 6 WCU (DynamoDB Local: 8)
    … from a web form          the order's Put becomes a transaction with its idempotency record:
                               atomic 7 WCU (Local 9), gapless 1 RCU + 8 WCU (Local 10)
    a tenant's orders in a     Query ``t BETWEEN``: 0.5 RCU per 4 KB read
      range
    all tenants: a time range, N Queries of ``by_time`` merged: 0.5 RCU per 4 KB per shard
      latest / oldest 100
    status change              UpdateItem conditioned on the status it leaves: 2 WCU (item + ``by_time``)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import as_utc, shard_suffix, time_key


@dataclass(frozen=True)
class Product:
    code: str
    max_quantity: int  # a sane ceiling per order; more is a mistake or needs a conversation


PRODUCTS = {
    p.code: p
    for p in (
        Product("seats", 500),
        Product("storage", 10_000),  # GB
        Product("support_hours", 200),
    )
}
DELIVERY_METHODS = ("standard", "expedited", "next_cycle")
STATUSES = ("pending", "paid", "fulfilled", "cancelled")
# Which status may follow which; anything else is an InvalidTransition.
TRANSITIONS: dict[str, frozenset[str]] = {
    "pending": frozenset({"paid", "cancelled"}),
    "paid": frozenset({"fulfilled", "cancelled"}),
    "fulfilled": frozenset(),
    "cancelled": frozenset(),
}
NUMBERING_MODES = ("atomic", "gapless")
DEFAULT_SHARDS = 4
MAX_ORDER_NUMBER = 10**15 - 1  # the 15 digits of the sort key's suffix
SHARD_PREFIX = "orders#"

# Range presets of the order lists: "the last 24 hours / 7 days / 1 month / 3 months".
PRESETS = ("24h", "7d", "1m", "3m")


def shard_key(number: int, shards: int = DEFAULT_SHARDS) -> str:
    """Partition key of ``by_time``: ``orders#<number mod shards>`` — consecutive numbers round-robin.

    Orders count their shards from 0 (what is stored), the other sharded keys from 1.
    """
    return f"{SHARD_PREFIX}{shard_suffix(number, shards, first=0)}"


def shard_keys(shards: int = DEFAULT_SHARDS) -> list[str]:
    """Every partition key of ``by_time`` for ``shards`` shards."""
    return [shard_key(k, shards) for k in range(shards)]


def order_sort_key(when: datetime, number: int) -> str:
    """``<time_key>#<number, 15 digits>``: unique, and string order is time order, then number order."""
    if not 0 < number <= MAX_ORDER_NUMBER:
        raise ValueError(f"order number out of range: {number}")
    return f"{time_key(when)}#{number:015d}"


def months_before(when: datetime, months: int) -> datetime:
    """The same day and time ``months`` calendar months earlier (the 31st becomes the month's last day)."""
    total = when.year * 12 + when.month - 1 - months
    year, month = divmod(total, 12)
    month += 1
    next_month = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=when.tzinfo)
    last_day = (next_month - timedelta(days=1)).day
    return when.replace(year=year, month=month, day=min(when.day, last_day))


def preset_since(preset: str, now: datetime) -> datetime:
    """Start of a range preset ending ``now``: 24h, 7d, 1m (calendar month), 3m."""
    now = as_utc(now)
    if preset == "24h":
        return now - timedelta(hours=24)
    if preset == "7d":
        return now - timedelta(days=7)
    if preset in ("1m", "3m"):
        return months_before(now, int(preset[0]))
    raise ValueError(f"unknown range preset {preset!r}; expected one of {', '.join(PRESETS)}")


class OrdersByTimeIndex(GlobalSecondaryIndex["OrderItem"]):
    """Every order by time: PK a time shard (``orders#0`` … ``orders#N-1``), SK ``t``; ALL attributes."""

    class Meta:
        index_name = "by_time"
        projection = AllProjection()

    time_shard = UnicodeAttribute(hash_key=True, attr_name="g")
    placed = UnicodeAttribute(range_key=True, attr_name="t")


class OrdersByNumberIndex(GlobalSecondaryIndex["OrderItem"]):
    """An order's key by its number: PK ``n``, SK ``c`` (the customer); keys only."""

    class Meta:
        index_name = "by_number"
        projection = KeysOnlyProjection()

    number = NumberAttribute(hash_key=True, attr_name="n")
    customer = UnicodeAttribute(range_key=True, attr_name="c")


@register("orders")
class OrderItem(Model):
    """One order of add-ons by a tenant. Never deleted: cancelled is a status."""

    class Meta:
        table_name = "orders"  # the base name: register() prefixes it

    customer = UnicodeAttribute(hash_key=True, attr_name="c")
    placed = UnicodeAttribute(range_key=True, attr_name="t")
    number = NumberAttribute(attr_name="n")
    time_shard = UnicodeAttribute(attr_name="g")
    product = UnicodeAttribute(attr_name="p")
    quantity = NumberAttribute(attr_name="q")
    delivery = UnicodeAttribute(attr_name="dm")
    status = UnicodeAttribute(attr_name="st", default="pending")
    placed_by = UnicodeAttribute(attr_name="by")
    updated_at = UTCDateTimeAttribute(attr_name="ua")
    updated_by = UnicodeAttribute(attr_name="ub", null=True)
    # The placing call's random token: a refused put that finds it here was that call's own.
    request = UnicodeAttribute(attr_name="rq", null=True)

    by_time = OrdersByTimeIndex()
    by_number = OrdersByNumberIndex()

    @property
    def placed_at(self) -> datetime:
        """When the order was placed (aware UTC, millisecond precision), from the sort key."""
        return datetime.strptime(self.placed.partition("#")[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)

    @property
    def next_statuses(self) -> list[str]:
        """The statuses this order may move to, in workflow order."""
        return [s for s in STATUSES if s in TRANSITIONS.get(self.status, frozenset())]
