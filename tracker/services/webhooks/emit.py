"""Emitting a recorded change to the team's webhook endpoints: exactly once per endpoint and event (PLAN22 D5).

``activity.record`` calls ``emit_later`` for every change, with the change's one key. The team's endpoints come
from the cache (``selectors.webhooks.team_endpoints``: a miss is one consistent Query, 1 RCU); for each active endpoint
subscribed to the change's type, the delivery is put in the request (PutItem ``attribute_not_exists``: the same
change emitted twice is one delivery) and its sending queued. A broker that does not answer loses nothing: the
delivery is due now, and the sweep (``delivery.sweep``, every minute) sends it. No endpoint: no write, no task.

DynamoDB refusing a put (throttled past botocore's retries, not answering) or the endpoint list loses nothing
either: the rest of the emit is handed to the ``emit_webhooks`` task (the payload as built now, the endpoints
left), which puts those deliveries, retried while refused (the tasks' full-jitter backoff, 5 retries). Only DynamoDB
and the broker both failing loses a delivery, and that is logged.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from ddbmodels.core import errors
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.events import WEBHOOK_EVENTS
from ddbmodels.issues import IssueItem
from ddbmodels.webhooks import delivery_id_of, delivery_put
from tracker import enqueue, optional_redis
from tracker.selectors.webhooks import team_endpoints
from tracker.services.webhooks.payload import payload_text

log = logging.getLogger(__name__)


def emit_later(issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any], event_key: str) -> None:
    """Put one delivery per active endpoint subscribed to ``kind`` and queue its sending; never raises.

    Cost: nothing without an endpoint subscribed (the cached list); else per endpoint a PutItem (1–3 WCU + 1 for
    the due entry; 1 WCU when it exists already: the change emitted again) and a task. Puts DynamoDB refused are
    handed to ``emit_webhooks`` (``later``): the same puts, from a worker, retried.
    """
    type_ = WEBHOOK_EVENTS.get(kind)  # type: ignore[call-overload]  # a Kind is its string
    if type_ is None:
        return
    try:
        try:
            subscribed = [e.id for e in team_endpoints(issue.tenant) if e.active and type_ in e.events]
        except Exception as error:
            if not errors.is_unavailable(error):
                raise
            subscribed = None  # the list could not be read: the task reads it
        if subscribed == []:
            return
        body = payload_text(issue, type=type_, actor=actor, data=data, event_key=event_key)
        left = None if subscribed is None else deliveries_put(issue.tenant, subscribed, type_, event_key, body)
        if left != []:
            later(issue.tenant, left, type_, event_key, body)
    except Exception:  # noqa: BLE001  (the change is saved: a webhook lost here must not fail the request)
        log.warning("could not emit the webhooks of %s on %s", kind, issue.reference, exc_info=True)


def deliveries_put(tenant: str, endpoint_ids: list[str], type_: str, event_key: str, body: str) -> list[str]:
    """Put each endpoint's delivery (``attribute_not_exists``) and queue the new ones' sending; the endpoints whose
    put DynamoDB did not take (unavailable, throttled: ``errors.is_unavailable``). Any other error is raised."""
    now, left = utcnow(), []
    for endpoint_id in endpoint_ids:
        try:
            new = delivery_put(
                tenant=tenant,
                endpoint_id=endpoint_id,
                event_key=event_key,
                type=type_,
                payload=body,
                now=now,
                keep_days=settings.WEBHOOK_DELIVERY_DAYS,
            )
        except Exception as error:
            if not errors.is_unavailable(error):
                raise
            left.append(endpoint_id)
            continue
        if new:
            send_later(tenant, endpoint_id, delivery_id_of(event_key))
    return left


def later(tenant: str, endpoint_ids: list[str] | None, type_: str, event_key: str, body: str) -> None:
    """Queue ``emit_webhooks`` for the deliveries not put (``endpoint_ids``; None: the list was not read)."""
    enqueue.task(enqueue.EMIT_WEBHOOKS).apply_async(
        kwargs={"tenant": tenant, "endpoint_ids": endpoint_ids, "type": type_, "event_key": event_key, "body": body},
        retry=False,
    )
    log.info("the webhooks of %s on %s are handed to a worker", type_, tenant)


def emit_left(*, tenant: str, endpoint_ids: list[str] | None, type: str, event_key: str, body: str) -> int:
    """The task's work: put the deliveries the request could not (``None``: every endpoint subscribed to ``type``).

    Raises Unavailable while some put is still refused, so the task is retried (its backoff); the number put.
    Endpoints disabled or deleted since are left out; one put already is refused (1 WCU) and not sent twice.
    """
    live = {e.id for e in team_endpoints(tenant) if e.active and type in e.events}
    wanted = sorted(live) if endpoint_ids is None else [e for e in endpoint_ids if e in live]
    left = deliveries_put(tenant, wanted, type, event_key, body)
    if left:
        raise Unavailable("webhook deliveries not put", tenant=tenant, endpoints=len(left))
    return len(wanted)


def send_later(tenant: str, endpoint_id: str, delivery_id: str, *, countdown: float | None = None) -> bool:
    """Queue ``deliver_webhook``; False (logged) when the broker does not answer: the due sweep sends it then."""
    if optional_redis.paused():  # Redis failed a moment ago: the sweep finds the delivery due
        return False
    try:
        enqueue.task(enqueue.DELIVER_WEBHOOK).apply_async(
            kwargs={"tenant": tenant, "endpoint_id": endpoint_id, "delivery_id": delivery_id},
            countdown=countdown,
            retry=False,
        )
    except enqueue.BROKER_ERRORS as error:
        log.warning("could not queue webhook delivery %s of %s: the sweep sends it", delivery_id, tenant)
        optional_redis.failed("queue a webhook delivery", error)
        return False
    return True
