"""Capacity meter: every DynamoDB call's ConsumedCapacity, added up where the caller asks.

PynamoDB already sends ``ReturnConsumedCapacity=TOTAL`` on data operations. We hook botocore's
``after-call`` event for DynamoDB in every botocore session (the same place moto hooks in), so
the figures come from DynamoDB's own answers, not from estimates. A meter is opened with
``with measure() as m:`` and collects the calls made in that context (context variables, so
threads and requests do not mix); ``GLOBAL`` collects everything in the process.

A failed conditional write is charged by DynamoDB but its error answer carries no
ConsumedCapacity, so the meter counts those failures separately (``conditional_failures``).

Each call is also filed under the *access pattern* that made it: the domain operations of
``ddbmodels`` are wrapped in ``access_pattern("issues.create")`` and friends (a decorator or a
``with`` block), and every meter keeps totals and entry counts per pattern (``by_pattern``). The
outermost pattern wins — ``issues.create`` reading through the sequence module is one
``issues.create`` — and calls made outside any pattern are filed under ``UNTAGGED``. The pattern
rides in a context variable, so threads started with ``copy_context()`` keep it. A pattern's
*call* is counted when it first reaches DynamoDB (its first request), on the meters open when it
was entered: a block entered but answered without a request (a probe that did not run, input
refused before any call) is no call, so capacity per call stays comparable with the stated cost.

Used as a decorator, ``access_pattern`` also files the function's *stated cost* — the first
paragraph of its docstring, which opens with the DynamoDB operation and its cost — under the
pattern's name (``stated_costs()``), so the capacity page can set theory beside measurement.
"""

from __future__ import annotations

import contextvars
import inspect
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ContextDecorator, contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from botocore import handlers

from ddbmodels.core.errors import THROTTLING_CODES

READ_OPERATIONS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})
WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
UNTAGGED = "(no pattern)"


@dataclass
class PatternTotals:
    """What one access pattern used: times entered, capacity units, DynamoDB requests."""

    calls: int = 0
    rcu: float = 0.0
    wcu: float = 0.0
    requests: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "rcu": round(self.rcu, 3), "wcu": round(self.wcu, 3), "requests": self.requests}


@dataclass
class CapacityMeter:
    """Running totals of read/write capacity units and requests."""

    rcu: float = 0.0
    wcu: float = 0.0
    requests: int = 0
    conditional_failures: int = 0
    throttles: int = 0
    by_operation: Counter[str] = field(default_factory=Counter)
    by_pattern: dict[str, PatternTotals] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, operation: str, parsed: dict[str, Any]) -> None:
        read, write = _units(operation, parsed.get("ConsumedCapacity"))
        error = (parsed.get("Error") or {}).get("Code", "")
        pattern = _pattern.get() or UNTAGGED
        with self._lock:
            self.requests += 1
            self.rcu += read
            self.wcu += write
            self.by_operation[operation] += 1
            totals = self.by_pattern.setdefault(pattern, PatternTotals())
            totals.requests += 1
            totals.rcu += read
            totals.wcu += write
            if error == "ConditionalCheckFailedException" or _cancelled_on_condition(parsed):
                self.conditional_failures += 1
            elif error in THROTTLING_CODES:
                self.throttles += 1

    def add(self, other: CapacityMeter) -> None:
        with self._lock:
            self.rcu += other.rcu
            self.wcu += other.wcu
            self.requests += other.requests
            self.conditional_failures += other.conditional_failures
            self.throttles += other.throttles
            self.by_operation.update(other.by_operation)
            for name, theirs in other.by_pattern.items():
                ours = self.by_pattern.setdefault(name, PatternTotals())
                ours.calls += theirs.calls
                ours.rcu += theirs.rcu
                ours.wcu += theirs.wcu
                ours.requests += theirs.requests

    def entered(self, pattern: str) -> None:
        with self._lock:
            self.by_pattern.setdefault(pattern, PatternTotals()).calls += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "rcu": round(self.rcu, 3),
            "wcu": round(self.wcu, 3),
            "requests": self.requests,
            "conditional_failures": self.conditional_failures,
            "throttles": self.throttles,
            "by_operation": dict(self.by_operation),
            "by_pattern": {name: totals.as_dict() for name, totals in sorted(self.by_pattern.items())},
        }


class _Entry:
    """One entry into an outermost pattern: counted as a call on its meters at its first request."""

    def __init__(self, name: str, meters: tuple[CapacityMeter, ...]) -> None:
        self.name = name
        self.meters = meters
        self.counted = False
        self._lock = threading.Lock()  # the pattern's threads (copy_context) share this entry

    def count_once(self) -> None:
        with self._lock:
            if self.counted:
                return
            self.counted = True
        for meter in self.meters:
            meter.entered(self.name)


GLOBAL = CapacityMeter()
_active: contextvars.ContextVar[tuple[CapacityMeter, ...]] = contextvars.ContextVar("ddb_capacity_meters", default=())
_pattern: contextvars.ContextVar[str | None] = contextvars.ContextVar("ddb_access_pattern", default=None)
_entry: contextvars.ContextVar[_Entry | None] = contextvars.ContextVar("ddb_access_pattern_entry", default=None)
_stated: dict[str, dict[str, str]] = {}  # pattern -> {module.function: first paragraph of its docstring}
_stated_lock = threading.Lock()
F = TypeVar("F", bound=Callable[..., Any])


def stated_cost_of(function: Callable[..., Any]) -> str:
    """The first paragraph of ``function``'s docstring, on one line ("" without a docstring)."""
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def stated_costs() -> dict[str, list[str]]:
    """Each decorated pattern's stated costs (one per distinct docstring), by pattern name."""
    with _stated_lock:
        return {name: sorted(set(by_function.values()) - {""}) for name, by_function in sorted(_stated.items())}


@contextmanager
def measure() -> Iterator[CapacityMeter]:
    """Collect the capacity of every DynamoDB call made inside the block (this context only)."""
    meter = CapacityMeter()
    token = _active.set((*_active.get(), meter))
    try:
        yield meter
    finally:
        _active.reset(token)


class access_pattern(ContextDecorator):
    """File the DynamoDB calls made inside under ``name`` (unless an outer pattern is already set).

    An entry counts one call of the pattern on every meter open at entry, once its first DynamoDB
    request is made (an entry that makes none is no call). Not for generator functions:
    their body runs after the decorator has returned; wrap the consuming code instead.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._token: contextvars.Token[str | None] | None = None

        self._entry_token: contextvars.Token[_Entry | None] | None = None

    def __call__(self, function: F) -> F:  # type: ignore[override]
        """Decorate ``function``, filing its docstring's first paragraph as this pattern's stated cost."""
        with _stated_lock:
            _stated.setdefault(self.name, {})[f"{function.__module__}.{function.__qualname__}"] = stated_cost_of(
                function
            )
        return super().__call__(function)  # type: ignore[return-value]

    def _recreate_cm(self) -> access_pattern:
        return access_pattern(self.name)  # one instance per call: decorated functions may nest or run in threads

    def __enter__(self) -> access_pattern:
        if _pattern.get() is None:
            self._token = _pattern.set(self.name)
            self._entry_token = _entry.set(_Entry(self.name, (GLOBAL, *_active.get())))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._token is not None:
            _pattern.reset(self._token)
            self._token = None
        if self._entry_token is not None:
            _entry.reset(self._entry_token)
            self._entry_token = None


def current_pattern() -> str | None:
    return _pattern.get()


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
    entry = _entry.get()
    if entry is not None:
        entry.count_once()
    GLOBAL.record(operation, parsed)
    for meter in _active.get():
        meter.record(operation, parsed)


_HOOK = ("after-call.dynamodb", _after_call)
if _HOOK not in handlers.BUILTIN_HANDLERS:
    # Every botocore session created from now on registers the hook (PynamoDB makes its own).
    handlers.BUILTIN_HANDLERS.append(_HOOK)
