"""Owners register, edit, enable, disable and delete their team's webhook endpoints, and send a delivery again.

Every change is an owner's (PermissionDenied otherwise), checked as the pages and the API both call it, and
invalidates the team's cached list (``selectors.webhooks.team_endpoints``) so the next change emits to what
is registered now: on every outcome of its write (``_changing``), as a write whose answer was lost (an error, a
"changed since" on botocore's resend, a create found) may have been done. Registration is once per request key:
the key is the endpoint's id (``endpoint_id_for``), so a form or an API call sent again answers the endpoint it
registered (its secret included), never a second.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import AlreadyExists, InvalidInput, InvalidTransition, KeyReused, NotFound
from ddbmodels.core.keys import utcnow
from ddbmodels.events import WEBHOOK_EVENTS
from ddbmodels.webhooks import DeliveryItem, EndpointItem
from tracker import webhook_http
from tracker.cache import invalidate
from tracker.models import Membership, Role
from tracker.selectors.webhooks import team_endpoints, webhooks_cache_key
from tracker.services.permissions import require_role
from tracker.services.webhooks.emit import send_later

EVENT_NAMES = tuple(sorted(set(WEBHOOK_EVENTS.values())))


def new_secret() -> str:
    """``whsec_`` + base64 of 32 random bytes: the Standard Webhooks form of a signing secret."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def clean_events(events: Iterable[str]) -> list[str]:
    """The event names, each one Tracker sends (InvalidInput naming the others), at least one, sorted, once each."""
    chosen = sorted(set(events))
    unknown = [name for name in chosen if name not in EVENT_NAMES]
    if unknown:
        raise InvalidInput(
            f"Unknown events: {', '.join(unknown)}. Choose among {', '.join(EVENT_NAMES)}.", field="events"
        )
    if not chosen:
        raise InvalidInput("Choose at least one event to send.", field="events")
    return chosen


def clean_description(description: str) -> str:
    description = " ".join(description.split())
    if len(description) > ddb_webhooks.DESCRIPTION_MAX:
        raise InvalidInput(f"A description has at most {ddb_webhooks.DESCRIPTION_MAX} characters.", field="description")
    return description


def clean_url(url: str) -> str:
    """The URL as given, once ``webhook_http.check_url`` accepts it (http(s), no password, a public address)."""
    url = url.strip()
    webhook_http.check_url(url)
    return url


@contextmanager
def _changing(tenant: str) -> Iterator[None]:
    """Invalidate the team's cached endpoints after the write inside, whatever came of it (a Redis DEL)."""
    try:
        yield
    finally:
        invalidate(webhooks_cache_key(tenant))


def webhook_create(
    *,
    membership: Membership,
    url: str,
    events: Iterable[str],
    description: str = "",
    key: str,
    fingerprint: str | None = None,
) -> tuple[EndpointItem, bool]:
    """Register an endpoint for the team (an owner's); (endpoint, True) — or, for a request sent again with the
    same key, the endpoint it registered and False, as it is now (an API request's ``fingerprint`` is kept:
    KeyReused when another request comes with its key; AlreadyExists when that endpoint was deleted since).

    A team has at most ``ENDPOINTS_MAX`` live endpoints (counted on the cached list: only registrations racing
    each other pass it). Cost: the list (Redis, or a consistent Query 1 RCU), the URL's name resolved, PutItem 1 WCU
    (a request sent again: + a consistent GetItem, 1 RCU), and the cached list invalidated on every outcome (a
    Redis DEL: the next list read is a consistent Query, 1 RCU, a request sent again included).
    """
    require_role(membership, Role.OWNER)
    tenant = membership.tenant.slug
    url, chosen, description = clean_url(url), clean_events(events), clean_description(description)
    endpoint_id = ddb_webhooks.endpoint_id_for(key)
    live = team_endpoints(tenant)
    if len(live) >= ddb_webhooks.ENDPOINTS_MAX and endpoint_id not in {e.id for e in live}:
        raise InvalidInput(
            f"A team has at most {ddb_webhooks.ENDPOINTS_MAX} webhooks: delete one before adding another.", field="url"
        )
    with _changing(tenant):  # a request sent again finds the endpoint its lost answer registered: invalidated too
        endpoint, created = ddb_webhooks.endpoint_put(
            tenant,
            endpoint_id,
            url=url,
            events=chosen,
            secret=new_secret(),
            description=description,
            created_by=membership.user.get_username(),
            fingerprint=fingerprint,
        )
    if created:
        return endpoint, True
    if endpoint.status == ddb_webhooks.DELETED:
        raise AlreadyExists("This request registered a webhook that was deleted since: nothing was registered again.")
    if fingerprint and endpoint.fingerprint != fingerprint:
        raise KeyReused("This idempotency key registered a different webhook: nothing was registered.")
    return endpoint, False


def webhook_update(
    *,
    membership: Membership,
    endpoint_id: str,
    expected_version: int,
    url: str | None = None,
    events: Iterable[str] | None = None,
    description: str | None = None,
    active: bool | None = None,
) -> EndpointItem:
    """Change an endpoint on the version its editor read (an owner's): its URL, events, description, or enable
    (``active=True``: it is sent to again, its failures forgotten) or disable it. None keeps a field.

    ChangedSinceRead (409; 412 through the API's If-Match) when it moved on, nothing written. Cost: the URL's
    name resolved when it changes, UpdateItem 1 WCU.
    """
    require_role(membership, Role.OWNER)
    tenant = membership.tenant.slug
    url = None if url is None else clean_url(url)
    chosen = None if events is None else clean_events(events)
    description = None if description is None else clean_description(description)
    with _changing(tenant):  # ChangedSinceRead on botocore's resend of a write whose answer was lost: done
        return ddb_webhooks.endpoint_update(
            tenant,
            endpoint_id,
            expected_version=expected_version,
            url=url,
            events=chosen,
            description=description,
            active=active,
            disabled_why="" if active is not False else f"Disabled by {membership.user.get_username()}.",
        )


def webhook_delete(*, membership: Membership, endpoint_id: str, expected_version: int) -> EndpointItem:
    """Delete an endpoint (an owner's) on the version read: nothing is sent to it any more, and its deliveries
    expire as they would have (its tombstone is kept until after them). Cost: UpdateItem 1 WCU."""
    require_role(membership, Role.OWNER)
    tenant = membership.tenant.slug
    days = settings.WEBHOOK_DELIVERY_DAYS + ddb_webhooks.TOMBSTONE_EXTRA_DAYS
    with _changing(tenant):
        return ddb_webhooks.endpoint_tombstone(
            tenant, endpoint_id, expected_version=expected_version, expires=utcnow() + timedelta(days=days)
        )


def webhook_redeliver(
    *, membership: Membership, endpoint: EndpointItem, delivery_id: str, request_key: str | None = None
) -> DeliveryItem:
    """Send a delivery again (an owner's): back to pending and due now, with the same webhook-id, and its sending
    queued (a broker that does not answer: the sender's sweep, every minute, sends it). InvalidTransition (409)
    while it is pending or the endpoint is disabled; NotFound (404) for a delivery it does not have.

    Once per request: ``request_key`` (an API request's scoped idempotency key; None: a fresh token, the page's
    click) fences the write, so the same request again (its answer lost, resent by botocore or its client) gets the
    delivery as it is now, sent again once, never a 409 (``ddbmodels.webhooks.delivery_redeliver``). Cost:
    UpdateItem 1–3 WCU + 1 due entry; refused or sent again: + a consistent GetItem, 1 RCU."""
    require_role(membership, Role.OWNER)
    if not endpoint.active:
        raise InvalidTransition("This webhook is disabled: enable it before sending a delivery again.")
    event_key = ddb_webhooks.event_key_of(delivery_id)
    if event_key is None:
        raise NotFound("No such delivery.")
    fence = request_key or f"page.{uuid.uuid4().hex}"
    again = ddb_webhooks.delivery_redeliver(endpoint.tenant, endpoint.id, event_key, now=utcnow(), fence=fence)
    if again.status == ddb_webhooks.PENDING:  # not sent since (a request sent again: queued again, harmless)
        send_later(endpoint.tenant, endpoint.id, again.id)  # a broker that does not answer: the due sweep sends it
    return again
