"""Emitting a recorded change to the team's webhook endpoints: exactly once per endpoint and event (PLAN22 D5).

``activity.record`` calls ``emit_later`` for every change, with the change's one key. The team's endpoints come
from the cache (``selectors.webhooks.team_endpoints``: a miss is one consistent Query, 1 RCU); for each active endpoint
subscribed to the change's type, the delivery is put in the request (PutItem ``attribute_not_exists``: the same
change emitted twice is one delivery) and its sending queued. A broker that does not answer loses nothing: the
delivery is due now, and the sweep (``delivery.sweep``, every minute) sends it. No endpoint: no write, no task.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

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
    the due entry) and a task.
    """
    type_ = WEBHOOK_EVENTS.get(kind)  # type: ignore[call-overload]  # a Kind is its string
    if type_ is None:
        return
    try:
        subscribed = [e for e in team_endpoints(issue.tenant) if e.active and type_ in e.events]
        if not subscribed:
            return
        body = payload_text(issue, type=type_, actor=actor, data=data, event_key=event_key)
        now = utcnow()
        for endpoint in subscribed:
            if delivery_put(
                tenant=issue.tenant,
                endpoint_id=endpoint.id,
                event_key=event_key,
                type=type_,
                payload=body,
                now=now,
                keep_days=settings.WEBHOOK_DELIVERY_DAYS,
            ):
                send_later(issue.tenant, endpoint.id, delivery_id_of(event_key))
    except Exception:  # noqa: BLE001  (the change is saved: a webhook lost here must not fail the request)
        log.warning("could not emit the webhooks of %s on %s", kind, issue.reference, exc_info=True)


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
