"""Issue activity: events written to the current period's table (read by ``tracker.selectors.activity``).

Events are written after the issue write they describe, best-effort: a failure is logged and
never fails the user's request (the issue itself is already safely written). The issue's whole
history (every period) and the team's day are read in ``tracker.selectors.activity``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from ddbmodels import events
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem
from tracker.search import indexing as search_indexing
from tracker.selectors.activity import issue_stream
from tracker.services import inbox, webhooks

log = logging.getLogger(__name__)


def record(
    issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any] | None = None, key: str | None = None
) -> str | None:
    """PutItem one event (≈ 1 WCU + 1 WCU for the by-day index); logged, never raised. The event's sort key.

    Then the watchers' notifications are queued (``inbox.fan_out_later``: never raises either), the team's webhook
    deliveries put and queued (``webhooks.emit_later``: never raises either; no endpoint, no write), and the search
    document's update (``search.indexing.index_later``: never raises either).

    ``key``: the change's own deterministic key (a creation's, ``events.creation_key``), for a change that may be
    recorded more than once: a create's replay records it again, as its first request may have written the item
    and stopped before recording it (R22-1). The event's put is then conditional (once; 1 WCU when already there),
    and everything after it is keyed by it, so a second record doubles nothing: a notification is one per event
    and person (``inbox.deliver``), a webhook delivery one per event and endpoint (``delivery_put``), the search
    document and the counts are brought up to what DynamoDB holds.
    """
    event = None
    try:
        event = events.event_put(
            stream=issue_stream(issue),
            kind=kind,
            actor=actor,
            tenant=issue.tenant,
            data=data or {},
            period=settings.EVENTS_PERIOD,
            shards=settings.EVENTS_SHARDS,
            billing_mode=settings.EVENTS_BILLING_MODE,
            throughput=settings.EVENTS_HOT_THROUGHPUT,
            key=key,
        )
    except Exception:  # noqa: BLE001  (activity is a log: losing one line must not fail a write)
        log.warning("could not record %s on %s", kind, issue_stream(issue), exc_info=True)
    # One key for the change, made here when the event could not be written: the notifications and the webhook
    # deliveries of one change carry the same key (a delivery's id is built from it: exactly once per endpoint).
    change = event.t if event is not None else key or events.new_sort_key(utcnow())
    inbox.fan_out_later(issue, kind=kind, actor=actor, data=data or {}, event_key=change)
    webhooks.emit_later(issue, kind=kind, actor=actor, data=data or {}, event_key=change)
    search_indexing.index_later(issue, kind=kind, data=data or {})
    return event.t if event is not None else None
