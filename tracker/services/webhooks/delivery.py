"""Sending a delivery: one attempt at a time, fenced, signed anew, retried on a schedule, endpoints disabled.

``attempt`` (the ``deliver_webhook`` task): reads the delivery (consistent GetItem, 1 RCU) and its endpoint
(consistent GetItem, 1 RCU: one registered or disabled a moment ago is seen as it is), claims the attempt
(``delivery_claim``: ``at`` + 1 where it was what was read, and a lease of ``LEASE``), signs the payload with the
attempt's time, POSTs it to the checked address (``tracker.webhook_http``) and writes the attempt's end
(``delivery_finish``, fenced on ``at``; the POST ends within ``WEBHOOK_TIMEOUT_SECONDS``, and the task's time limit
reached mid-POST is a failed attempt too):

- a 2xx delivers it (and an endpoint that was failing is no longer);
- a 410 fails it for good and disables the endpoint (the receiver said it is gone), its owners e-mailed;
- anything else (another code, a 3xx, no answer) makes it due again after ``WEBHOOK_RETRY_SCHEDULE[n - 1]``
  seconds ± 20 % (at least the answer's Retry-After on a 429 or 503), or fails it after the last; an endpoint
  whose deliveries have failed for ``WEBHOOK_DISABLE_AFTER_DAYS`` is disabled, its owners e-mailed.

A delivery's attempts are counted over its life: one an owner sends again (``webhook_redeliver``) is tried once
more, then retried on what is left of the schedule (none for one that had failed for good).

Waits up to ``MAX_COUNTDOWN`` are queued with a countdown; longer ones are sent by the sweep (``sweep``, every
minute: Celery's Redis broker would run a task delayed past its visibility timeout twice). A worker that dies
mid-attempt leaves the delivery due when its lease ends: retried, with the same webhook-id (at least once).
"""

from __future__ import annotations

import logging
import random
import time
from datetime import datetime, timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from ddbmodels.core.keys import utcnow
from ddbmodels.webhooks import (
    PENDING,
    Attempt,
    DeliveryItem,
    EndpointItem,
    delivery_claim,
    delivery_finish,
    delivery_get,
    delivery_id_of,
    due_keys,
    due_page,
    endpoint_disable,
    endpoint_failing,
    endpoint_get,
    endpoint_recovered,
    event_key_of,
)
from tracker import webhook_http
from tracker.cache import invalidate
from tracker.selectors.webhooks import webhooks_cache_key
from tracker.services.webhooks import notices, signing
from tracker.services.webhooks.emit import send_later

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=60)  # > the task's time limit (30 s): the sweep leaves an attempt under way alone
MAX_COUNTDOWN = 300  # seconds: longer waits are the sweep's (RESEARCH22 §3)
JITTER = 0.2
SWEEP_GRACE = timedelta(seconds=30)  # a due delivery's own task goes first


def attempt(tenant: str, endpoint_id: str, delivery_id: str) -> str:
    """Make the next attempt of one delivery, if it is pending and due; what happened, in a word (for the log)."""
    event_key = event_key_of(delivery_id)
    if event_key is None:
        return "no such delivery"
    delivery = delivery_get(tenant, endpoint_id, event_key, consistent=True)
    if delivery is None:
        return "no such delivery"
    if delivery.status != PENDING:
        return f"already {delivery.status}"
    now = utcnow()
    if delivery.next_attempt is not None and delivery.next_attempt > now + timedelta(seconds=1):
        return "not due yet"  # a task queued twice, or an attempt under way (its lease)
    endpoint = endpoint_get(tenant, endpoint_id, consistent=True)
    claimed = delivery_claim(
        tenant=tenant, endpoint_id=endpoint_id, event_key=event_key, seen=delivery.attempts, lease_until=now + LEASE
    )
    if claimed is None:
        return "claimed by another attempt"
    if endpoint is None or not endpoint.active:
        why = "the endpoint was deleted" if endpoint is None else "the endpoint is disabled"
        finished = delivery_finish(
            delivery=claimed, attempt=Attempt(at=now, code=0, ms=0), answer=why, next_attempt=None, final=True
        )
        return f"not sent: {why}" if finished else "superseded"
    return send(endpoint, claimed)


def send(endpoint: EndpointItem, claimed: DeliveryItem) -> str:
    """Sign, POST and record attempt ``claimed.attempts``; then the endpoint's state and the next try."""
    at = utcnow()
    headers = signing.headers(endpoint.secret, claimed.message_id, claimed.payload, at)
    started = time.monotonic()
    try:
        answer = webhook_http.post(endpoint.url, claimed.payload, headers)
    except SoftTimeLimitExceeded:
        # The task's time limit came mid-POST (``post`` ends by its own deadline, well before: a name the resolver
        # took long to look up). Still an attempt that failed, logged, on the schedule (R22-5): left unfinished,
        # the sweep would resend it when its lease ends, every few minutes, never backing off or disabling.
        took = webhook_http.elapsed_ms(started)
        answer = webhook_http.Answer(status=0, ms=took, error=f"no answer within {max(1, round(took / 1000))} s")
    attempt_ = Attempt(at=at, code=answer.status, ms=answer.ms)
    text = answer.error or answer.snippet
    n = claimed.attempts
    if answer.ok:
        if delivery_finish(delivery=claimed, attempt=attempt_, answer=text, next_attempt=None) is None:
            return "superseded"
        if endpoint.failing_since is not None and endpoint_recovered(tenant=endpoint.tenant, endpoint_id=endpoint.id):
            invalidate(webhooks_cache_key(endpoint.tenant))
        return "delivered"
    if answer.status == 410:
        delivery_finish(delivery=claimed, attempt=attempt_, answer=text, next_attempt=None, final=True)
        disable(endpoint, why="The receiver answered 410 Gone: it no longer takes these deliveries.", now=at)
        return "gone: endpoint disabled"
    wait = retry_wait(n, answer)
    next_attempt = at + timedelta(seconds=wait) if wait is not None else None
    state = delivery_finish(
        delivery=claimed, attempt=attempt_, answer=text, next_attempt=next_attempt, final=wait is None
    )
    if state is None:
        return "superseded"
    failing(endpoint, at)
    if wait is not None and wait <= MAX_COUNTDOWN:
        send_later(endpoint.tenant, endpoint.id, claimed.id, countdown=wait)
    return f"failed ({answer.status or answer.error}); " + (f"next in {wait:.0f} s" if wait is not None else "no more")


def retry_wait(n: int, answer: webhook_http.Answer) -> float | None:
    """Seconds before attempt n + 1 (the schedule's n-th wait ± 20 %, at least Retry-After on a 429 or 503);
    None after the schedule's last."""
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    if n > len(schedule):
        return None
    wait = schedule[n - 1] * random.uniform(1 - JITTER, 1 + JITTER)  # spreading retries, not a secret
    if answer.status in (429, 503) and answer.retry_after:
        wait = max(wait, float(answer.retry_after))
    return wait


def failing(endpoint: EndpointItem, at: datetime) -> None:
    """Mark the endpoint failing since ``at`` (its first failure); disable it once failing for the days set."""
    if endpoint.failing_since is None:
        if endpoint_failing(tenant=endpoint.tenant, endpoint_id=endpoint.id, since=at):
            invalidate(webhooks_cache_key(endpoint.tenant))
        return
    days = settings.WEBHOOK_DISABLE_AFTER_DAYS
    if at - endpoint.failing_since >= timedelta(days=days):
        disable(endpoint, why=f"Every delivery failed for {days} days.", now=at)


def disable(endpoint: EndpointItem, *, why: str, now: datetime) -> None:
    """Disable the endpoint (if still active) and e-mail its team's owners once."""
    if endpoint_disable(tenant=endpoint.tenant, endpoint_id=endpoint.id, why=why, now=now):
        invalidate(webhooks_cache_key(endpoint.tenant))
        notices.endpoint_disabled(endpoint, why=why)


def sweep(now: datetime | None = None) -> int:
    """Queue every delivery due for ``SWEEP_GRACE`` (Query each due shard, ≤ 200 a shard: 8 × 0.5 RCU when idle);
    how many queued.

    The grace leaves a delivery to the task already queued for it (a new one's, a short retry's countdown): the
    sweep sends what no task did. A delivery under way holds a lease (its ``na`` a minute ahead), so it is not due;
    one queued twice is sent once (the claim is fenced)."""
    now = now or utcnow()
    queued = 0
    for shard in due_keys():
        for due in due_page(shard, now - SWEEP_GRACE):
            if send_later(due.tenant, due.endpoint_id, delivery_id_of(due.event_key)):
                queued += 1
    return queued
