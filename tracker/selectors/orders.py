"""Orders as views see them: a tenant's order by number, its orders by time; all orders for staff.

An order number resolves to the order's key through the ``by_number`` index (eventually
consistent), so the key is also remembered in Redis when the order is placed (by the service,
``tracker.services.orders``) — the page shown right after placing it never misses — and after
each index look-up (cache-aside): the key of an order never changes. A Redis outage only costs
the index look-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.http import Http404

from ddbmodels import orders as ddb_orders
from ddbmodels.core.keys import utcnow
from ddbmodels.orders import PRESETS, OrderItem, preset_since
from tracker.cache import cached
from tracker.cursors import INVALID, open_signed, sign
from tracker.exceptions import BadCursor
from tracker.models import Tenant

PAGE_SIZE = 25
STAFF_LIMIT = 100
ORDER_KEY_CACHE_SECONDS = 7 * 24 * 3600
_CURSOR_SALT = "tracker.order-list.cursor"
_DIRECTIONS = (ddb_orders.OLDER, ddb_orders.NEWER)


@dataclass(frozen=True)
class OrderWindow:
    """A list's time range: a preset ("24h", "7d", "1m", "3m"), custom UTC dates, or all time."""

    preset: str = ""
    start: date | None = None  # inclusive
    end: date | None = None  # inclusive

    def bounds(self, now: datetime) -> tuple[datetime | None, datetime | None]:
        """[since, until) in aware UTC."""
        if self.preset:
            return preset_since(self.preset, now), None
        since = datetime.combine(self.start, time(), UTC) if self.start else None
        until = datetime.combine(self.end + timedelta(days=1), time(), UTC) if self.end else None
        return since, until

    @property
    def listing(self) -> str:
        return f"{self.preset}|{self.start or ''}|{self.end or ''}"


@dataclass(frozen=True)
class OrderListPage:
    orders: list[OrderItem]
    next_cursor: str | None
    previous_cursor: str | None


def order_key_cache_key(tenant: str, number: int) -> str:
    return f"ddb:order-key:{tenant}:{number}"


def _order_placed(tenant: str, number: int) -> str | None:
    """The sort key (``placed``) of the tenant's order, from Redis or one by_number index Query."""

    def look_up() -> str | None:
        key = ddb_orders.order_key(number=number, customer=tenant)
        return key[1] if key is not None else None

    return cached(
        order_key_cache_key(tenant, number),
        ORDER_KEY_CACHE_SECONDS,
        look_up,
        dump=lambda placed: placed,
        restore=lambda raw: raw if isinstance(raw, str) else None,
        keep=lambda placed: placed is not None,  # misses are not cached: the number may come
    )


def order_access(*, tenant: Tenant, number: int, consistent: bool = False) -> OrderItem:
    """The tenant's order with this number, or Http404 (another tenant's order is just as missing).

    Redis or one index Query (0.5 RCU) for the key, then one GetItem (0.5 RCU, 1 consistent).
    """
    placed = _order_placed(tenant.slug, number)
    order = ddb_orders.order_get(customer=tenant.slug, placed=placed, consistent=consistent) if placed else None
    if order is None or int(order.number) != number:
        raise Http404("No such order.")
    return order


def order_list_page(
    *, tenant: Tenant, window: OrderWindow, cursor: str | None, now: datetime | None = None
) -> OrderListPage:
    """One page of the tenant's orders in the window, newest first; signed cursors bound to the listing.

    Raises BadCursor for a cursor that is tampered with or belongs to another listing.
    """
    listing = f"{tenant.slug}|{window.listing}"
    after, direction = _decode(cursor, listing)
    since, until = window.bounds(now or utcnow())
    page = ddb_orders.customer_orders_page(
        customer=tenant.slug, since=since, until=until, size=PAGE_SIZE, after=after, direction=direction
    )

    def link(position: str | None, towards: str) -> str | None:
        if position is None:
            return None
        return sign(_CURSOR_SALT, listing=listing, a=position, d=towards)

    return OrderListPage(
        orders=page.items,
        next_cursor=link(page.older_than, ddb_orders.OLDER),
        previous_cursor=link(page.newer_than, ddb_orders.NEWER),
    )


def _decode(token: str | None, listing: str) -> tuple[str | None, str]:
    if not token:
        return None, ddb_orders.OLDER
    data = open_signed(token, kind=_CURSOR_SALT, listing=listing)
    after, direction = data.get("a"), data.get("d")
    if not isinstance(after, str) or not after or direction not in _DIRECTIONS:
        raise BadCursor(INVALID)
    return after, direction


# ------------------------------------------------------------------- staff: every tenant's orders


def staff_orders_latest(*, limit: int = STAFF_LIMIT) -> list[OrderItem]:
    """The newest orders of every tenant: one by_time Query per shard, merged."""
    return ddb_orders.orders_latest(limit=limit, shards=settings.ORDER_SHARDS)


def staff_orders_oldest(*, limit: int = STAFF_LIMIT) -> list[OrderItem]:
    """The oldest orders of every tenant: one by_time Query per shard, merged."""
    return ddb_orders.orders_oldest(limit=limit, shards=settings.ORDER_SHARDS)


def staff_orders_in_range(
    *, preset: str = "", since: datetime | None = None, until: datetime | None = None, now: datetime | None = None
) -> list[OrderItem]:
    """Every tenant's orders of a preset ("24h", "7d", "1m", "3m") or in [since, until), newest first."""
    if preset:
        if preset not in PRESETS:
            raise ValueError(f"unknown range preset {preset!r}")
        since, until = preset_since(preset, now or utcnow()), None
    return ddb_orders.orders_in_range(since=since, until=until, shards=settings.ORDER_SHARDS)


def staff_order_find(*, number: int) -> OrderItem | None:
    """Any tenant's order by number (index Query + GetItem, 1 RCU); None when there is none."""
    return ddb_orders.order_find(number=number)
