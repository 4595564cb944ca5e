"""Emitting a recorded change to the team's webhook endpoints: exactly once per endpoint and event (PLAN22 D5).

``activity.record`` calls ``emit_later`` for every change, with the change's one key. The team's endpoints come
from the cache (``selectors.webhooks.team_endpoints``: a miss is one consistent Query, 1 RCU); for each active endpoint
subscribed to the change's type, the delivery is put in the request (PutItem ``attribute_not_exists``: the same
change emitted twice is one delivery) and its sending queued. A broker that does not answer loses nothing: the
delivery is due now, and the sweep (``delivery.sweep``, every minute) sends it. No endpoint: no write, no task.

DynamoDB refusing a put (throttled past botocore's retries, not answering) or the endpoint list is handed to the
``emit_webhooks`` task (the payload as built now, the endpoints left), which puts those deliveries, retried while
refused (the tasks' full-jitter backoff, each wait at most 300 s) until the change is ``EMIT_RETRY_SECONDS`` old
(an hour: longer than a throttle plausibly lasts). A delivery is lost, and logged as an error naming it (the
change's delivery id, its team, type and endpoints), when DynamoDB refuses its put for that whole hour, or when
DynamoDB and the broker both fail in the request (the hand-over is then lost: logged as a warning).

Subscribers are the endpoints live when the change happened: the request's list, or, when it could not read it,
the task's list less the endpoints registered after the change's time (``emit_left``).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings

from ddbmodels.core import errors
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import time_key, utcnow
from ddbmodels.events import WEBHOOK_EVENTS, sort_key_time
from ddbmodels.issues import IssueItem
from ddbmodels.webhooks import delivery_id_of, delivery_put
from tracker import enqueue, optional_redis
from tracker.selectors.webhooks import team_endpoints
from tracker.services.webhooks.payload import payload_text

log = logging.getLogger(__name__)
EMIT_RETRY_SECONDS = 3600  # how long emit_webhooks keeps putting refused deliveries after the change (R2-2)


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
    """The task's work: put the deliveries the request could not (``None``: every endpoint subscribed to ``type``
    then, i.e. live now and registered no later than the change's time, to the millisecond: an endpoint registered
    after the change does not receive it; one disabled or deleted since does not either, as with ``endpoint_ids``).

    Raises Unavailable while some put (or the list) is still refused, so the task is retried (its backoff), until
    the change is ``EMIT_RETRY_SECONDS`` old: then the deliveries left are logged as lost (an error naming them)
    and the number put is returned. One put already is refused (1 WCU) and not sent twice.
    """
    changed = sort_key_time(event_key)
    try:
        live = [e for e in team_endpoints(tenant) if e.active and type in e.events]
    except Exception as error:
        if not errors.is_unavailable(error):
            raise
        put, left = 0, endpoint_ids or ["(every endpoint subscribed: their list was not read)"]
    else:
        if endpoint_ids is None:  # the subscribers when the change happened (R2-6)
            live = [e for e in live if time_key(e.created_at) <= time_key(changed)]
        ids = {e.id for e in live}
        wanted = sorted(ids) if endpoint_ids is None else [e for e in endpoint_ids if e in ids]
        left = deliveries_put(tenant, wanted, type, event_key, body)
        put = len(wanted) - len(left)
    if not left:
        return put
    if utcnow() - changed < timedelta(seconds=EMIT_RETRY_SECONDS):
        raise Unavailable("webhook deliveries not put", tenant=tenant, endpoints=len(left))
    log.error(
        "webhook delivery %s (%s) of %s LOST for endpoints %s: DynamoDB refused its put for %s s after the change",
        delivery_id_of(event_key),
        type,
        tenant,
        ", ".join(left),
        EMIT_RETRY_SECONDS,
    )
    return put


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
