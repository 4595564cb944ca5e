"""Signing a delivery the Standard Webhooks way (the ``standardwebhooks`` package), anew at every attempt.

``webhook-signature`` is ``v1,<base64 HMAC-SHA256>`` of ``"<webhook-id>.<webhook-timestamp>.<body>"`` with the
endpoint's secret. The timestamp is the attempt's (receivers refuse one more than 5 minutes off), so every attempt
is signed again; the ``webhook-id`` stays the same (receivers deduplicate on it). The body signed is exactly the
text sent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from math import floor

from standardwebhooks import Webhook


def headers(secret: str, msg_id: str, body: str, at: datetime) -> dict[str, str]:
    """The headers of one attempt sent at ``at`` (aware): webhook-id, -timestamp, -signature, content-type."""
    at = at.astimezone(UTC)  # sign() labels any time UTC without converting it: convert first
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(floor(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, at, body),
        "content-type": "application/json",
    }
