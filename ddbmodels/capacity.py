"""Capacity meter: every DynamoDB call's ConsumedCapacity, added up where the caller asks.

PynamoDB already sends ``ReturnConsumedCapacity=TOTAL`` on data operations. We hook botocore's
``after-call`` event for DynamoDB in every botocore session (the same place moto hooks in), so
the figures come from DynamoDB's own answers, not from estimates. A meter is opened with
``with measure() as m:`` and collects the calls made in that context (context variables, so
threads and requests do not mix); ``GLOBAL`` collects everything in the process.

A failed conditional write is charged by DynamoDB but its error answer carries no
ConsumedCapacity, so the meter counts those failures separately (``conditional_failures``).
"""

from __future__ import annotations

import contextvars
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore import handlers

READ_OPERATIONS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})
WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


@dataclass
class CapacityMeter:
    """Running totals of read/write capacity units and requests."""

    rcu: float = 0.0
    wcu: float = 0.0
    requests: int = 0
    conditional_failures: int = 0
    throttles: int = 0
    by_operation: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, operation: str, parsed: dict[str, Any]) -> None:
        read, write = _units(operation, parsed.get("ConsumedCapacity"))
        error = (parsed.get("Error") or {}).get("Code", "")
        with self._lock:
            self.requests += 1
            self.rcu += read
            self.wcu += write
            self.by_operation[operation] += 1
            if error == "ConditionalCheckFailedException" or _cancelled_on_condition(parsed):
                self.conditional_failures += 1
            elif error in {"ProvisionedThroughputExceededException", "ThrottlingException"}:
                self.throttles += 1

    def add(self, other: CapacityMeter) -> None:
        with self._lock:
            self.rcu += other.rcu
            self.wcu += other.wcu
            self.requests += other.requests
            self.conditional_failures += other.conditional_failures
            self.throttles += other.throttles
            self.by_operation.update(other.by_operation)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rcu": round(self.rcu, 3),
            "wcu": round(self.wcu, 3),
            "requests": self.requests,
            "conditional_failures": self.conditional_failures,
            "throttles": self.throttles,
            "by_operation": dict(self.by_operation),
        }


GLOBAL = CapacityMeter()
_active: contextvars.ContextVar[tuple[CapacityMeter, ...]] = contextvars.ContextVar("ddb_capacity_meters", default=())


@contextmanager
def measure() -> Iterator[CapacityMeter]:
    """Collect the capacity of every DynamoDB call made inside the block (this context only)."""
    meter = CapacityMeter()
    token = _active.set((*_active.get(), meter))
    try:
        yield meter
    finally:
        _active.reset(token)


def _units(operation: str, consumed: Any) -> tuple[float, float]:
    entries = consumed if isinstance(consumed, list) else [consumed] if consumed else []
    read = write = 0.0
    for entry in entries:
        if "ReadCapacityUnits" in entry or "WriteCapacityUnits" in entry:
            read += float(entry.get("ReadCapacityUnits") or 0)
            write += float(entry.get("WriteCapacityUnits") or 0)
        elif operation in READ_OPERATIONS:
            read += float(entry.get("CapacityUnits") or 0)
        elif operation in WRITE_OPERATIONS:
            write += float(entry.get("CapacityUnits") or 0)
    return read, write


def _cancelled_on_condition(parsed: dict[str, Any]) -> bool:
    reasons = parsed.get("CancellationReasons") or []
    return any(r.get("Code") == "ConditionalCheckFailed" for r in reasons)


def _after_call(*, model: Any, parsed: dict[str, Any], **_: Any) -> None:
    operation = model.name
    GLOBAL.record(operation, parsed)
    for meter in _active.get():
        meter.record(operation, parsed)


_HOOK = ("after-call.dynamodb", _after_call)
if _HOOK not in handlers.BUILTIN_HANDLERS:
    # Every botocore session created from now on registers the hook (PynamoDB makes its own).
    handlers.BUILTIN_HANDLERS.append(_HOOK)
