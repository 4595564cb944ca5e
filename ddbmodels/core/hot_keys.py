"""Hot keys: which partition keys the DynamoDB calls touched, sampled, in bounded memory.

A small Contributor Insights. Two botocore hooks beside the capacity meter's: before a call
(``before-parameter-build``) a sampled request's partition keys are read from its parameters —
``Key``/``Item`` of GetItem, PutItem, UpdateItem, DeleteItem; the hash-key value of a Query's
``KeyConditionExpression`` (table or index); every item of BatchGetItem, BatchWriteItem,
TransactGetItems and TransactWriteItems — and after it (``after-call``) the capacity DynamoDB
reports for each table is split evenly over the keys the request touched there. Scans touch
no one key and are not counted.

Which attribute is the hash key comes from the registered models (table and global indexes);
a table no model owns counts only when its ``Key`` has a single attribute.

Sampling: a request is counted with probability ``sample_rate`` (``DYNAMODB_HOT_KEYS_SAMPLE_RATE``,
0.1 by default) and then weighs ``1 / sample_rate``, so the figures estimate the whole traffic.
Memory: at most ``max_keys`` keys are held between flushes; a new key arriving when the
counter is full evicts the smallest one (its figures are lost — the hot keys are never the
smallest). Table totals are kept whole, so a key's share is of all its table's traffic.
``flush()`` hands what was counted to a *sink* (the Django side ships it to Redis) at most every
``flush_seconds``; nothing here imports Django.
"""

from __future__ import annotations

import base64
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from botocore import handlers

from ddbmodels.core import connection

log = logging.getLogger(__name__)
CONTEXT_KEY = "ddbmodels_hot_keys"
DEFAULT_SAMPLE_RATE = 0.1
DEFAULT_MAX_KEYS = 1000
DEFAULT_FLUSH_SECONDS = 5.0
READS = frozenset({"GetItem", "BatchGetItem", "Query", "TransactGetItems"})


@dataclass(frozen=True)
class Touch:
    """One partition key a request touched: table, index ("" for the table itself), key value."""

    table: str
    index: str
    key: str


@dataclass
class Figures:
    """Estimated requests and capacity units (already scaled by 1 / sample rate)."""

    requests: float = 0.0
    rcu: float = 0.0
    wcu: float = 0.0

    def add(self, requests: float, rcu: float, wcu: float) -> None:
        self.requests += requests
        self.rcu += rcu
        self.wcu += wcu


@dataclass
class Batch:
    """What ``flush`` hands the sink: figures by key, and by (table, index) for the shares."""

    keys: dict[Touch, Figures] = field(default_factory=dict)
    tables: dict[tuple[str, str], Figures] = field(default_factory=dict)
    evicted: int = 0


Sink = Callable[[Batch], None]


class HotKeyCounter:
    """Per-key and per-table figures since the last drain, holding at most ``max_keys`` keys."""

    def __init__(self, max_keys: int = DEFAULT_MAX_KEYS) -> None:
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._batch = Batch()

    def add(self, touch: Touch, requests: float, rcu: float, wcu: float) -> None:
        with self._lock:
            keys = self._batch.keys
            figures = keys.get(touch)
            if figures is None:
                if len(keys) >= self.max_keys:
                    smallest = min(keys, key=lambda t: (keys[t].requests, keys[t].rcu + keys[t].wcu))
                    del keys[smallest]
                    self._batch.evicted += 1
                figures = keys[touch] = Figures()
            figures.add(requests, rcu, wcu)
            self._batch.tables.setdefault((touch.table, touch.index), Figures()).add(requests, rcu, wcu)

    def __len__(self) -> int:
        return len(self._batch.keys)

    def drain(self) -> Batch:
        with self._lock:
            batch, self._batch = self._batch, Batch()
        return batch


def _env_rate() -> float:
    try:
        return min(max(float(os.environ.get("DYNAMODB_HOT_KEYS_SAMPLE_RATE", DEFAULT_SAMPLE_RATE)), 0.0), 1.0)
    except ValueError:
        return DEFAULT_SAMPLE_RATE


@dataclass
class _State:
    sample_rate: float = field(default_factory=_env_rate)
    flush_seconds: float = DEFAULT_FLUSH_SECONDS
    sink: Sink | None = None
    counter: HotKeyCounter = field(default_factory=HotKeyCounter)
    last_flush: float = field(default_factory=time.monotonic)
    random: Callable[[], float] = random.random


_state = _State()


def configure(
    *,
    sample_rate: float | None = None,
    flush_seconds: float | None = None,
    max_keys: int | None = None,
    sink: Sink | None | object = ...,
) -> None:
    """Set the sampling rate (0–1), the flush interval, the memory bound and the sink."""
    if sample_rate is not None:
        _state.sample_rate = min(max(sample_rate, 0.0), 1.0)
    if flush_seconds is not None:
        _state.flush_seconds = flush_seconds
    if max_keys is not None:
        _state.counter.max_keys = max_keys
    if sink is not ...:
        _state.sink = sink  # type: ignore[assignment]


def counter() -> HotKeyCounter:
    return _state.counter


def flush(*, force: bool = False) -> Batch | None:
    """Hand what was counted to the sink when ``flush_seconds`` have passed (or ``force``); never raises."""
    now = time.monotonic()
    if not force and now - _state.last_flush < _state.flush_seconds:
        return None
    _state.last_flush = now
    batch = _state.counter.drain()
    if not batch.keys or _state.sink is None:
        return batch
    try:
        _state.sink(batch)
    except Exception:  # figures are an aid: losing a batch must not fail the caller
        log.exception("hot keys: the sink failed; %d keys dropped", len(batch.keys))
    return batch


# --- which attribute is the hash key ------------------------------------------------------------

_hash_keys: dict[tuple[str, str], str | None] = {}


def _refresh_hash_keys() -> None:
    found: dict[tuple[str, str], str] = {}
    for model in connection.registered().values():
        table = model.Meta.table_name
        hash_key = model._hash_key_attribute()
        if hash_key is not None:
            found[(table, "")] = hash_key.attr_name  # the stored name (``s``), not the Python one
        for index in model._indexes.values():
            attribute = index._hash_key_attribute()
            if attribute is not None:
                found[(table, index.Meta.index_name)] = attribute.attr_name
    _hash_keys.update(found)


def hash_key_of(table: str, index: str = "") -> str | None:
    """The hash-key attribute of a table or index, from the registered models (None if unknown)."""
    if (table, index) not in _hash_keys:
        _refresh_hash_keys()  # a new prefix (tests, benchmarks) renames every table
        _hash_keys.setdefault((table, index), None)  # no model owns it: remembered, not looked up again
    return _hash_keys[(table, index)]


# --- key extraction -----------------------------------------------------------------------------


def render(value: Any) -> str | None:
    """A typed attribute value as text: S and N as they are, B as base64."""
    if not isinstance(value, dict) or not value:
        return None
    kind, raw = next(iter(value.items()))
    if kind in ("S", "N"):
        return str(raw)
    if kind == "B":
        data = raw if isinstance(raw, bytes) else str(raw).encode()
        return base64.b64encode(data).decode()
    return None


def _from_item(table: str, item: Any) -> Touch | None:
    if not isinstance(item, dict):
        return None
    name = hash_key_of(table)
    if name is None:
        if len(item) != 1:
            return None
        name = next(iter(item))
    value = render(item.get(name))
    return Touch(table, "", value) if value is not None else None


_EQUALS = re.compile(r"(#?[A-Za-z0-9_.]+)\s*=\s*(:[A-Za-z0-9_]+)")


def _from_query(params: dict[str, Any]) -> Touch | None:
    table, index = params.get("TableName", ""), params.get("IndexName", "") or ""
    expression = params.get("KeyConditionExpression") or ""
    name = hash_key_of(table, index)
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    for left, placeholder in _EQUALS.findall(expression):
        attribute = names.get(left, left)
        if name is None or attribute == name:
            value = render(values.get(placeholder))
            if value is not None:
                return Touch(table, index, value)
    return None


def touches(operation: str, params: dict[str, Any]) -> list[Touch]:
    """The partition keys a request names, in order (one per item; repeats kept)."""
    found: list[Touch | None] = []
    if operation in ("GetItem", "DeleteItem", "UpdateItem"):
        found.append(_from_item(params.get("TableName", ""), params.get("Key")))
    elif operation == "PutItem":
        found.append(_from_item(params.get("TableName", ""), params.get("Item")))
    elif operation == "Query":
        found.append(_from_query(params))
    elif operation == "BatchGetItem":
        for table, request in (params.get("RequestItems") or {}).items():
            found.extend(_from_item(table, key) for key in request.get("Keys") or [])
    elif operation == "BatchWriteItem":
        for table, requests in (params.get("RequestItems") or {}).items():
            for request in requests:
                put, delete = request.get("PutRequest"), request.get("DeleteRequest")
                found.append(_from_item(table, put["Item"] if put else (delete or {}).get("Key")))
    elif operation in ("TransactWriteItems", "TransactGetItems"):
        for entry in params.get("TransactItems") or []:
            for action in entry.values():
                found.append(_from_item(action.get("TableName", ""), action.get("Key") or action.get("Item")))
    return [touch for touch in found if touch is not None]


def _consumed_by_table(consumed: Any) -> dict[str, float]:
    entries = consumed if isinstance(consumed, list) else [consumed] if consumed else []
    units: dict[str, float] = {}
    for entry in entries:
        total = entry.get("CapacityUnits")
        if total is None:
            total = float(entry.get("ReadCapacityUnits") or 0) + float(entry.get("WriteCapacityUnits") or 0)
        units[entry.get("TableName", "")] = units.get(entry.get("TableName", ""), 0.0) + float(total)
    return units


def record(operation: str, found: Iterable[Touch], parsed: dict[str, Any], weight: float) -> None:
    """Count one sampled request: one request per key touched, the table's capacity split over its keys."""
    found = list(found)
    if not found:
        return
    consumed = _consumed_by_table(parsed.get("ConsumedCapacity"))
    per_table: dict[str, int] = {}
    for touch in found:
        per_table[touch.table] = per_table.get(touch.table, 0) + 1
    read = operation in READS
    for touch in found:
        share = consumed.get(touch.table, 0.0) / per_table[touch.table] * weight
        _state.counter.add(touch, weight, share if read else 0.0, 0.0 if read else share)


def _before(*, params: dict[str, Any], model: Any, context: dict[str, Any] | None = None, **_: Any) -> None:
    if context is None or _state.sample_rate <= 0 or _state.random() >= _state.sample_rate:
        return
    try:
        context[CONTEXT_KEY] = (touches(model.name, params), 1.0 / _state.sample_rate)
    except Exception:  # noqa: BLE001 — a request we cannot read is simply not counted
        log.debug("hot keys: could not read the keys of %s", model.name, exc_info=True)


def _after(*, model: Any, parsed: dict[str, Any], context: dict[str, Any] | None = None, **_: Any) -> None:
    sampled = (context or {}).pop(CONTEXT_KEY, None)
    if sampled:
        record(model.name, sampled[0], parsed, sampled[1])


for _hook in (("before-parameter-build.dynamodb", _before), ("after-call.dynamodb", _after)):
    if _hook not in handlers.BUILTIN_HANDLERS:
        handlers.BUILTIN_HANDLERS.append(_hook)
