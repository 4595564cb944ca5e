"""Webhooks: endpoints owners register (``endpoints``) and the signed deliveries of every recorded change.

``emit_later`` (called by ``activity.record`` for every change) puts one delivery per subscribed endpoint and queues
its sending; ``delivery.attempt`` signs (``signing``), sends (``tracker.webhook_http``), retries and disables.
"""

from __future__ import annotations

from tracker.services.webhooks.emit import emit_later

__all__ = ["emit_later"]
