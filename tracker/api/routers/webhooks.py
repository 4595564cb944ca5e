"""A team's webhooks by API: its owners register, read, edit, disable and delete endpoints, read each one's delivery
log and send a delivery again. Every operation needs an owner's ``admin`` token: anybody but an owner finds no webhooks
(404, as on the owners' page and for another team's), an owner's token without ``admin`` is a 403 (``OWNERS_ONLY``).

The same services and selectors as the owners' page (``/t/<team>/settings/webhooks/``): registration is once per
``Idempotency-Key`` (the key is the endpoint's id; the secret is in the 201 and its replays only), edits and deletes
go on the endpoint's version (``If-Match``: a stale one is a 412 with the endpoint as it is now, nothing written).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Query, Router, Schema
from pydantic import BaseModel, ConfigDict, Field

from ddbmodels.core.errors import ChangedSinceRead
from tracker.api.access import require_scope, team_access
from tracker.api.etag import etag_of, if_match, not_modified, not_modified_response, precondition_failed
from tracker.api.idempotency import answer_once, client_key, key_header, run_once, scoped_key
from tracker.api.openapi import cost
from tracker.api.paging import set_links
from tracker.api.schemas import as_sent
from tracker.api.webhook_log import DeliveryPage, EventName, LogQuery, RedeliveryOut, delivery_out
from tracker.selectors import webhooks as selectors
from tracker.services import replays
from tracker.services.webhooks import endpoints as services

if TYPE_CHECKING:
    from ddbmodels.webhooks import EndpointItem
    from tracker.models import Membership

router = Router(tags=["webhooks"])
View = Callable[..., Any]

HOOKS = "/teams/{team}/webhooks"
HOOK = f"{HOOKS}/{{webhook_id}}"
URL_MAX = 2000  # ddbmodels.webhooks.URL_MAX
DESCRIPTION_MAX = 200  # ddbmodels.webhooks.DESCRIPTION_MAX
OWNERS_ONLY = (
    "Owners only: an owner's `admin` token (an owner's `read` or `write` token: 403); anybody else finds no webhooks"
    " (404), as on the team's Webhooks page."
)


class WebhookOut(Schema):
    """A registered endpoint (its secret is shown once: in the answer that registered it)."""

    id: str = Field(description="Its id in URLs.")
    url: str = Field(description="Where deliveries are POSTed.")
    events: list[EventName] = Field(description="The events sent to it.")  # type: ignore[valid-type]
    description: str
    status: str = Field(description="`active`, or `disabled` (by an owner, a 410 answer or days of failures).")
    disabled_why: str = Field(description="Why it was disabled; empty while active.")
    failing_since: datetime | None = Field(description="Since when its deliveries fail; null when the last succeeded.")
    created_by: str
    created_at: datetime
    updated_at: datetime
    version: int = Field(description="Goes up by one with every change; the endpoint's ETag is its quoted value.")


class WebhookCreated(WebhookOut):
    """The registered endpoint and its signing secret, shown here only (and in this request's replays)."""

    secret: str = Field(
        description="`whsec_…`: verify each delivery's `webhook-signature` with it (Standard Webhooks)."
    )


class WebhookIn(BaseModel):
    """An endpoint to register."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=URL_MAX, description="https:// (or http://) URL of a public address.")
    events: list[EventName] = Field(min_length=1, description="The events to send.")  # type: ignore[valid-type]
    description: str = Field("", max_length=DESCRIPTION_MAX, description="What it is for, in your words.")


class WebhookPatch(BaseModel):
    """The fields to change (absent or null: kept)."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(None, min_length=1, max_length=URL_MAX)
    events: list[EventName] | None = Field(None, min_length=1)  # type: ignore[valid-type]
    description: str | None = Field(None, max_length=DESCRIPTION_MAX)
    active: bool | None = Field(None, description="true: send to it again (its failures forgotten); false: stop.")


def webhook_out(endpoint: EndpointItem) -> dict[str, Any]:
    """One endpoint, JSON-ready, without its secret; reads nothing."""
    return as_sent(
        WebhookOut(
            id=endpoint.id,
            url=endpoint.url,
            events=[EventName(name) for name in endpoint.events],
            description=endpoint.description,
            status=endpoint.status,
            disabled_why=endpoint.disabled_why,
            failing_since=endpoint.failing_since,
            created_by=endpoint.created_by,
            created_at=endpoint.created_at,
            updated_at=endpoint.updated_at,
            version=endpoint.version,
        )
    )


def first_webhook(endpoint: EndpointItem, payload: WebhookIn) -> dict[str, Any]:
    """The answer of the POST that registered ``endpoint`` from ``payload``, and of every replay byte for byte: from
    the request (cleaned as stored) and the endpoint's parts that never change (id, secret, creator, time), as it was
    registered (active, version 1), whatever happened to it since."""
    return as_sent(
        WebhookCreated(
            id=endpoint.id,
            url=payload.url.strip(),
            events=[EventName(name) for name in services.clean_events(e.value for e in payload.events)],
            description=services.clean_description(payload.description),
            status="active",
            disabled_why="",
            failing_since=None,
            created_by=endpoint.created_by,
            created_at=endpoint.created_at,
            updated_at=endpoint.created_at,
            version=1,
            secret=endpoint.secret,
        )
    )


def owners_only(view: View) -> View:
    """``view``, its description (its docstring, read by the route's decorator above) ending with ``OWNERS_ONLY``."""
    view.__doc__ = f"{inspect.cleandoc(view.__doc__ or '')}\n\n{OWNERS_ONLY}"
    return view


def _owner(request: HttpRequest, team: str) -> Membership:
    """The caller's membership with an ``admin`` token of an owner: Http404 for another team and, as on the pages,
    for anybody but an owner (the person's role now); PermissionDenied (403) for an owner's token of another scope."""
    membership = team_access(request, team)
    if not membership.allows("owner"):
        raise Http404("No such page.")
    require_scope(request, "admin")
    return membership


@router.get(
    HOOKS,
    response=list[WebhookOut],
    summary="The team's webhooks",
    openapi_extra=cost(
        requests="0 (cached) or 1", rcu="0 or 1", note="One consistent Query of the team's endpoints, cached."
    ),
)
@owners_only
def webhooks_list(request: HttpRequest, team: str) -> list[dict[str, Any]]:
    """The team's registered endpoints, oldest first (at most 10), without their secrets."""
    _owner(request, team)
    return [webhook_out(endpoint) for endpoint in selectors.team_endpoints(team)]


@router.post(
    HOOKS,
    response={201: WebhookCreated},
    summary="Register a webhook",
    openapi_extra=cost(
        requests="2–3 (the key's endpoint first, the cached list on a miss, the PutItem); a replay 1",
        rcu="1 (the key's endpoint, consistent) + 0 or 1 (the list, consistent on a miss); a replay 1",
        wcu="1 (PutItem attribute_not_exists: the key is the endpoint's id); a replay 0",
        note="Exactly once per Idempotency-Key: the key's endpoint is read first (a replay answers the first answer, "
        "whatever changed since: the URL is not resolved again); a new one's URL must lead to public addresses only.",
    ),
)
@owners_only
def webhook_create(
    request: HttpRequest, team: str, payload: WebhookIn, idempotency_key: str | None = key_header()
) -> HttpResponse:
    """Register an endpoint (an owner's `admin` token): the answer (201) holds its signing `secret`, shown here only;
    the same `Idempotency-Key` again answers the same, registering nothing. At most 10 a team (422)."""
    membership = _owner(request, team)

    class Registered:
        def __init__(self, endpoint: EndpointItem, created: bool) -> None:
            self.endpoint, self.replayed = endpoint, not created

    def create(scoped: str, fingerprint: str) -> Registered:
        return Registered(
            *services.webhook_create(
                membership=membership,
                url=payload.url,
                events=[e.value for e in payload.events],
                description=payload.description,
                key=scoped,
                fingerprint=fingerprint,
            )
        )

    def replay(scoped: str, fingerprint: str) -> Registered | None:
        found = replays.webhook_replay(membership=membership, idempotency_key=scoped, fingerprint=fingerprint)
        return None if found is None else Registered(found, created=False)

    answer = run_once(
        request,
        membership=membership,
        kind="webhook",
        replay=replay,
        create=create,
        first_answer=lambda registered: first_webhook(registered.endpoint, payload),
    )
    if answer.status_code == 201:
        answer["Location"] = request.build_absolute_uri(
            f"{request.path.rstrip('/')}/{json.loads(answer.content)['id']}"
        )
    return answer


@router.get(
    HOOK,
    response={200: WebhookOut, 304: None},
    summary="One webhook",
    openapi_extra=cost(requests=1, rcu=1, note="GetItem, consistent. A 304 costs the same read."),
)
@owners_only
def webhook_get(request: HttpRequest, team: str, webhook_id: str, response: HttpResponse) -> Any:
    """One endpoint as stored now, with its `ETag` (for `If-Match` on an edit or delete)."""
    endpoint = selectors.endpoint_access(_owner(request, team), webhook_id, consistent=True)
    tag = etag_of(endpoint)
    if not_modified(request, tag):
        return not_modified_response(tag)
    response["ETag"] = tag
    return webhook_out(endpoint)


def _stale(membership: Membership, endpoint: EndpointItem, wanted: int | None) -> HttpResponse:
    """The 412 of an ``If-Match`` that no longer names the endpoint; without one, the refusal stands (409)."""
    if wanted is None:
        raise ChangedSinceRead("the webhook changed while this request ran")
    current = (
        endpoint if endpoint.version != wanted else selectors.endpoint_access(membership, endpoint.id, consistent=True)
    )
    return precondition_failed(etag_of(current), webhook_out(current))


@router.patch(
    HOOK,
    response={200: WebhookOut},
    summary="Edit, enable or disable a webhook",
    openapi_extra=cost(
        requests=2,
        rcu="1 (the endpoint, consistent)",
        wcu="1 (UpdateItem on its version)",
        note="A stale If-Match is a 412 with the endpoint as it is now: nothing written.",
    ),
)
@owners_only
def webhook_update(
    request: HttpRequest, team: str, webhook_id: str, payload: WebhookPatch, response: HttpResponse
) -> Any:
    """Change an endpoint's URL, events or description, or enable (`active: true`) or disable it. With
    `If-Match: "<version>"` the change applies only to that version (else 412 and the endpoint as it is now)."""
    membership = _owner(request, team)
    endpoint = selectors.endpoint_access(membership, webhook_id, consistent=True)
    wanted = if_match(request)
    try:
        saved = services.webhook_update(
            membership=membership,
            endpoint_id=endpoint.id,
            expected_version=endpoint.version if wanted is None else wanted,
            url=payload.url,
            events=None if payload.events is None else [e.value for e in payload.events],
            description=payload.description,
            active=payload.active,
        )
    except ChangedSinceRead:
        return _stale(membership, endpoint, wanted)
    response["ETag"] = etag_of(saved)
    return webhook_out(saved)


@router.delete(
    HOOK,
    response={204: None},
    summary="Delete a webhook",
    openapi_extra=cost(
        requests=2,
        rcu="1 (the endpoint, consistent)",
        wcu="1 (UpdateItem to a tombstone on its version)",
        note="Its deliveries expire as they would have; nothing more is sent to it.",
    ),
)
@owners_only
def webhook_delete(request: HttpRequest, team: str, webhook_id: str) -> HttpResponse:
    """Delete an endpoint: nothing more is sent to it. With `If-Match: "<version>"` only that version (else 412)."""
    membership = _owner(request, team)
    endpoint = selectors.endpoint_access(membership, webhook_id, consistent=True)
    wanted = if_match(request)
    try:
        services.webhook_delete(
            membership=membership,
            endpoint_id=endpoint.id,
            expected_version=endpoint.version if wanted is None else wanted,
        )
    except ChangedSinceRead:
        return _stale(membership, endpoint, wanted)
    return HttpResponse(status=204)


@router.get(
    f"{HOOK}/deliveries",
    response=DeliveryPage,
    summary="A webhook's delivery log",
    openapi_extra=cost(
        requests=2,
        rcu="0.5 (the endpoint) + 0.5 per 4 KB of the page (≤ 2.5 KB a delivery: ≤ 8 for 25, ≈ 2 typical)",
        note="The endpoint's GetItem, then one Query of its deliveries, newest first.",
    ),
)
@owners_only
def webhook_deliveries(
    request: HttpRequest, team: str, webhook_id: str, response: HttpResponse, query: Query[LogQuery]
) -> dict[str, Any]:
    """The endpoint's deliveries, newest first: status, answer code, duration, attempts, next try."""
    endpoint = selectors.endpoint_access(_owner(request, team), webhook_id)
    page = selectors.delivery_log_page(endpoint, cursor=query.cursor, size=query.limit)
    set_links(request, response, next_cursor=page.next_cursor, prev_cursor=None)
    return {"items": [delivery_out(d) for d in page.items], "next_cursor": page.next_cursor, "prev_cursor": None}


@router.post(
    f"{HOOK}/deliveries/{{delivery_id}}/redeliver",
    response={202: RedeliveryOut},
    summary="Send a delivery again",
    openapi_extra=cost(
        requests="3–4 (the kept answer, the endpoint, the update; a first run + the answer kept)",
        rcu="1 (kept answer) + 0.5 (the endpoint); 409/404 or this key's update again: + 1 (the delivery, consistent)",
        wcu="1–3 (UpdateItem back to pending) + 1 (its due entry) + 1 (the answer kept, + 1 index entry)",
        note="Exactly once per Idempotency-Key, even when its answer was lost (the update is fenced on the key); "
        "409 while the delivery is pending for another request or the webhook disabled.",
    ),
)
@owners_only
def webhook_redeliver(
    request: HttpRequest, team: str, webhook_id: str, delivery_id: str, idempotency_key: str | None = key_header()
) -> HttpResponse:
    """Put a delivery back to be sent (within a minute, same `webhook-id`): 202. A delivery still pending (being sent,
    or waiting for its next try) or a disabled webhook is a 409; the same `Idempotency-Key` again answers the same."""
    membership = _owner(request, team)
    endpoint = selectors.endpoint_access(membership, webhook_id)

    def run() -> tuple[int, dict[str, Any]]:
        key = client_key(request)  # a str: answer_once runs this only once the key is valid
        again = services.webhook_redeliver(
            membership=membership,
            endpoint=endpoint,
            delivery_id=delivery_id,
            request_key=scoped_key(membership, key) if isinstance(key, str) else None,
        )
        return 202, as_sent(
            RedeliveryOut(
                id=again.id,
                webhook_id=again.message_id,
                status=again.status,
                attempts=again.attempts,
                next_attempt=again.next_attempt,
            )
        )

    return answer_once(request, membership=membership, kind="webhook-redeliver", run=run)
