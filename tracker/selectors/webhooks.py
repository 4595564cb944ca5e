"""A team's webhook endpoints (cached per team), one endpoint for its owners, and its delivery log a page at a time.

The cached list lives under the team's generation (``ddb:webhooks:<team>:<generation>``), and every endpoint change
drops the generation (``webhooks_cache_key``: a Redis DEL after the write). A reader reads the generation first
(created at random when missing: SET NX), then the list under it, and on a miss stores what it read under the
generation it read BEFORE its Query. So a refill that read the list before a registration and stores it after the
registration's DEL stores it under a generation nobody reads again: the stale list cannot win the race it used to
(the registered endpoint left out, every change meanwhile undelivered). What Redis loses (a DEL that failed or was
not sent while Redis was paused: logged by the cache) is bounded by the entry's lifetime,
``ENDPOINTS_CACHE_SECONDS`` (60 s, shorter than the other lists' 300 s for this reason).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.webhooks import DeliveryItem, EndpointItem
from tracker import cursors
from tracker.cache import cached
from tracker.exceptions import BadCursor
from tracker.models import Membership, Role

_LOG_CURSOR = "tracker.webhooks.log"
ENDPOINTS_CACHE_SECONDS = 60  # the bound on a change Redis lost (a failed DEL): a minute, not 5 (R2-1)
GENERATION_SECONDS = 86_400  # an idle team's generation goes; a missing one is a new generation (a fresh miss)
_TIMES = ("created_at", "updated_at", "failing_since")


def webhooks_cache_key(tenant: str) -> str:
    """The key of the team's cache generation: every change to an endpoint deletes it (``tracker.cache.invalidate``
    after the write, in ``services.webhooks``), which retires the list cached under it."""
    return f"ddb:webhooks:{tenant}"


def _generation(tenant: str) -> str | None:
    """The team's cache generation (a GET; missing: SET NX of a random one, then a GET); None while Redis fails."""
    key = webhooks_cache_key(tenant)
    found = cache.get(key)
    if found is None:
        cache.add(key, secrets.token_hex(8), GENERATION_SECONDS)
        found = cache.get(key)
    return None if found is None else str(found)


def _dump(endpoints: list[EndpointItem]) -> list[dict[str, Any]]:
    """The cached copy: no secret in Redis (what reads the list, the emitter and the pages, never signs)."""
    rows = []
    for endpoint in endpoints:
        row = asdict(replace(endpoint, secret=""))
        row.update({name: row[name].isoformat() if row[name] else None for name in _TIMES})
        rows.append(row)
    return rows


def _restore(rows: list[dict[str, Any]]) -> list[EndpointItem]:
    return [
        EndpointItem(
            **{
                **row,
                "events": tuple(row["events"]),
                **{name: datetime.fromisoformat(row[name]) if row[name] else None for name in _TIMES},
            }
        )
        for row in rows
    ]


def team_endpoints(tenant: str) -> list[EndpointItem]:
    """The team's live endpoints, oldest first, without their secrets: Redis (2 GETs: the generation, then the list
    under it), or one consistent Query (1 RCU) on a miss — the refill after a registration or a change must see it,
    or the list cached would miss it (and every change meanwhile its delivery). The refill is stored under the
    generation read before the Query, for ``ENDPOINTS_CACHE_SECONDS``: a change made meanwhile retired it (see the
    module's docstring). Redis failing: the Query, nothing stored."""
    generation = _generation(tenant)
    if generation is None:
        return ddb_webhooks.endpoints_of(tenant, consistent=True)
    return cached(
        f"{webhooks_cache_key(tenant)}:{generation}",
        ENDPOINTS_CACHE_SECONDS,
        lambda: ddb_webhooks.endpoints_of(tenant, consistent=True),
        dump=_dump,
        restore=_restore,
    )


def endpoint_access(membership: Membership, endpoint_id: str, *, consistent: bool = False) -> EndpointItem:
    """The endpoint as stored (GetItem, 0.5 RCU; 1 consistent) for an owner of its team: PermissionDenied (403)
    for anyone else, Http404 for an id the team has no live endpoint under (another team's, deleted, malformed)."""
    if not membership.allows(Role.OWNER):
        raise PermissionDenied(f"Only the owners of {membership.tenant.name} manage its webhooks.")
    tenant = membership.tenant.slug
    found = (
        ddb_webhooks.endpoint_get(tenant, endpoint_id, consistent=consistent)
        if ddb_webhooks.ENDPOINT_ID_RE.match(endpoint_id)
        else None
    )
    if found is None:
        raise Http404("No such webhook.")
    return found


def _is_event_key(value: str) -> bool:
    try:
        return ddb_webhooks.event_key_of(ddb_webhooks.delivery_id_of(value)) == value
    except ValueError:
        return False


@dataclass(frozen=True)
class DeliveryLogPage:
    """One page of an endpoint's deliveries, newest first, and the signed cursor of the next (None: the last)."""

    items: list[DeliveryItem]
    next_cursor: str | None


def delivery_log_page(
    endpoint: EndpointItem, *, cursor: str | None = None, size: int = ddb_webhooks.LOG_PAGE
) -> DeliveryLogPage:
    """A page of the endpoint's delivery log (one Query: ≤ 8 RCU for 25, ≈ 2 typical); BadCursor (400) for a
    cursor that is not this log's (tampered, expired, another endpoint's)."""
    listing = f"{endpoint.tenant}#hooks#{endpoint.id}"
    before = None
    if cursor:
        data = cursors.open_signed(cursor, kind=_LOG_CURSOR, listing=listing)
        before = data.get("b")
        if not isinstance(before, str) or not _is_event_key(before):
            raise BadCursor(cursors.INVALID)
    items, after = ddb_webhooks.delivery_page(endpoint.tenant, endpoint.id, before=before, size=size)
    return DeliveryLogPage(items, cursors.sign(_LOG_CURSOR, listing=listing, b=after) if after else None)


def delivery_access(endpoint: EndpointItem, delivery_id: str) -> DeliveryItem:
    """One delivery of the endpoint (GetItem, 0.5 RCU per 4 KB); Http404 for an id it has none under."""
    event_key = ddb_webhooks.event_key_of(delivery_id)
    found = ddb_webhooks.delivery_get(endpoint.tenant, endpoint.id, event_key) if event_key else None
    if found is None:
        raise Http404("No such delivery.")
    return found
