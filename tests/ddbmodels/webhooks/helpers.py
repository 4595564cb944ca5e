"""Deliveries written as the sender writes them (raw items), for the tests of the log and of offboarding."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ddbmodels import webhooks
from ddbmodels.core import connection
from ddbmodels.core.keys import time_key

WHEN = datetime(2026, 11, 22, 10, 15, 30, 123000, tzinfo=UTC)


def event_key(n: int) -> str:
    """The n-th event key of a test (later n, later key)."""
    return f"2026-11-22T10:{n // 60:02d}:{n % 60:02d}.000Z#{n:08x}"


def put_delivery(tenant: str, endpoint_id: str, key: str, *, pending: bool, payload: str = "{}") -> None:
    pk, sort = webhooks.endpoint_key(tenant, endpoint_id), webhooks.delivery_sort(key)
    item: dict[str, Any] = {
        "pk": {"S": pk},
        "s": {"S": sort},
        "m": {"S": webhooks.message_id(endpoint_id, key)},
        "ty": {"S": "issue.created"},
        "p": {"S": payload},
        "st": {"S": webhooks.PENDING if pending else webhooks.DELIVERED},
        "at": {"N": "0" if pending else "1"},
        "al": {"L": [] if pending else [{"M": {"t": {"S": time_key(WHEN)}, "c": {"N": "204"}, "ms": {"N": "12"}}}]},
        "na": {"S": time_key(WHEN)},
        "ca": {"S": time_key(WHEN)},
    }
    if not pending:
        item.update({"lc": {"N": "204"}, "ld": {"N": "12"}, "da": {"S": time_key(WHEN)}})
    if pending:
        item["dk"] = {"S": webhooks.due_key(pk, sort)}
    connection.client().put_item(TableName=connection.table_name("webhooks"), Item=item)
