"""A webhook's delivery log as the API shows it: one delivery (``delivery_out``), a page of them, the answer of a
redeliver, and the event names (``EventName``: an endpoint's events, a delivery's type). Reads nothing."""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ninja import Schema
from pydantic import Field

from tracker.api.schemas import Page, as_sent
from tracker.services.webhooks.endpoints import EVENT_NAMES

if TYPE_CHECKING:
    from ddbmodels.webhooks import DeliveryItem

EventName = StrEnum("EventName", {name.replace(".", "_"): name for name in EVENT_NAMES})  # type: ignore[misc]


class AttemptOut(Schema):
    at: datetime
    code: int = Field(description="The answer's HTTP status; 0 when none came (refused, timed out).")
    ms: int = Field(description="How long the attempt took, in milliseconds.")


class DeliveryOut(Schema):
    """One event's delivery to the endpoint."""

    id: str = Field(description="Its id in URLs.")
    webhook_id: str = Field(description="The `webhook-id` header: the same on every attempt (deduplicate on it).")
    type: EventName  # type: ignore[valid-type]
    status: str = Field(description="`pending` (being sent or waiting for its next try), `delivered` or `failed`.")
    attempts: int
    created_at: datetime
    next_attempt: datetime | None = Field(description="When it is tried next, while pending.")
    delivered_at: datetime | None
    last_code: int | None = Field(description="The last answer's status (0: none came); null before any attempt.")
    last_ms: int | None = Field(description="The last attempt's duration in milliseconds.")
    last_answer: str = Field(description="The last answer's first 512 bytes, or why none came.")
    recent: list[AttemptOut] = Field(description="The last 10 attempts, oldest first.")
    payload: dict[str, Any] = Field(description="The JSON body sent (signed as sent).")


class DeliveryPage(Page[DeliveryOut]):
    """A page of the endpoint's deliveries, newest first (`next_cursor`: older ones)."""


class RedeliveryOut(Schema):
    """The delivery, put back to be sent: the sender tries it within a minute, with the same `webhook-id`."""

    id: str
    webhook_id: str
    status: str
    attempts: int
    next_attempt: datetime | None


class LogQuery(Schema):
    cursor: str | None = Field(None, description="A cursor from a page of this log (`next_cursor`).")
    limit: int = Field(25, ge=1, le=100, description="Deliveries a page (1–100).")


def delivery_out(delivery: DeliveryItem) -> dict[str, Any]:
    try:
        payload = json.loads(delivery.payload) if delivery.payload else {}
    except ValueError:
        payload = {}
    return as_sent(
        DeliveryOut(
            id=delivery.id,
            webhook_id=delivery.message_id,
            type=EventName(delivery.type),
            status=delivery.status,
            attempts=delivery.attempts,
            created_at=delivery.created_at,
            next_attempt=delivery.next_attempt if delivery.status == "pending" else None,
            delivered_at=delivery.delivered_at,
            last_code=delivery.last_code,
            last_ms=delivery.last_ms,
            last_answer=delivery.last_answer,
            recent=[AttemptOut(at=a.at, code=a.code, ms=a.ms) for a in delivery.recent],
            payload=payload if isinstance(payload, dict) else {},
        )
    )
