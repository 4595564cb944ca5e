"""Floors: DynamoDB's minimum of a capacity figure, what DynamoDB Local charges instead, and a verdict.

A figure (``Cost``: RCU, WCU, requests) is compared with DynamoDB's own minimum, worked out from
AWS's pricing rules: 1 WCU per started KB written, per item and per index entry (``write_units``);
a transactional write 2× each item write; a refused conditional write charged 1 WCU per KB; 0.5
RCU per started 4 KB eventually consistent, 1 RCU strongly consistent, per request and at least
one unit even when it finds nothing (``read_units``); sizes by DynamoDB's rules (``item_size``).

Where DynamoDB Local charges otherwise, the difference is a named ``Difference`` (the ``LOCAL_*``
reasons) and Local's floor is printed beside DynamoDB's; the ratio divides by Local's floor, the
one a measurement on Local can be compared with. Anything else above the floor must be named too,
with its expected size and a stated tolerance. ``Verdict.ok`` is false for a figure below its floor
or one its named differences do not account for; ``devtools.bench.run`` then fails the run.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ddbmodels.core import capacity

Column = tuple[str, str, str]  # title, key in the row, format spec

# What DynamoDB Local charges otherwise than DynamoDB (the named differences the benches use).
LOCAL_EMPTY_QUERY = "DynamoDB Local charges 0 for a Query or Scan page that finds nothing (DynamoDB: 0.5 RCU)"
LOCAL_REFUSED_WRITE = (
    "DynamoDB Local's error answer to a refused conditional write carries no ConsumedCapacity "
    "(DynamoDB charges it 1 WCU per KB); the meter counts it under conditional_failures"
)
LOCAL_TRANSACT_INDEX = "DynamoDB Local charges an index entry written by a transaction twice, like the items"


# ---------------------------------------------------------------------------- floors


@dataclass(frozen=True)
class Cost:
    """Capacity of one call or many: read units, write units, requests (None: not part of a floor)."""

    rcu: float = 0.0
    wcu: float = 0.0
    requests: float | None = None

    @classmethod
    def of(cls, meter: capacity.CapacityMeter | capacity.PatternTotals) -> Cost:
        return cls(meter.rcu, meter.wcu, meter.requests)

    def __add__(self, other: Cost) -> Cost:
        both = (
            None if self.requests is None and other.requests is None else (self.requests or 0) + (other.requests or 0)
        )
        return Cost(self.rcu + other.rcu, self.wcu + other.wcu, both)

    def times(self, n: float) -> Cost:
        return Cost(self.rcu * n, self.wcu * n, None if self.requests is None else self.requests * n)

    @property
    def units(self) -> float:
        return self.rcu + self.wcu


def total(costs: Iterable[Cost]) -> Cost:
    return sum(costs, Cost())


def read_units(size: int, *, consistent: bool = False, transactional: bool = False) -> float:
    """One read of ``size`` bytes: 0.5 RCU eventually consistent, 1 strongly, 2 in a transaction, per started 4 KB.

    At least one 4 KB unit, even when it finds nothing. For a Query or Scan page ``size`` is the sum
    of the items it reads (``query_units``); a BatchGetItem rounds each item on its own
    (``batch_get_units``).
    """
    return max(1, math.ceil(size / 4096)) * (2.0 if transactional else 1.0 if consistent else 0.5)


def query_units(sizes: Iterable[int], *, consistent: bool = False) -> float:
    """One Query or Scan page: the sizes of the items it reads added up, then rounded to 4 KB (at least one unit)."""
    return read_units(sum(sizes), consistent=consistent)


def batch_get_units(sizes: Iterable[int], *, consistent: bool = False) -> float:
    """One BatchGetItem: each key looked up is a GetItem of its own, rounded to 4 KB on its own (a missing key too)."""
    return sum(read_units(size, consistent=consistent) for size in sizes)


def write_units(size: int, *, transactional: bool = False) -> int:
    """One write of an item (or index entry) of ``size`` bytes: 1 WCU per started KB, 2 in a transaction."""
    return max(1, math.ceil(size / 1024)) * (2 if transactional else 1)


def update_units(before: int, after: int, *, transactional: bool = False) -> int:
    """An UpdateItem (or a PutItem over an item): the larger of the item before and after, per started KB."""
    return write_units(max(before, after), transactional=transactional)


@dataclass(frozen=True)
class Difference:
    """A named difference from a floor: what causes it, its expected size, and the tolerance around it."""

    why: str
    cost: Cost
    tolerance: Cost = Cost()

    def text(self, per: float = 1) -> str:
        """``why (+0.5 RCU, +1 req ± 0.25 per op)``: the cause, then the expected size and tolerance."""
        sized = [f"{v / per:+g} {unit}" for v, unit in zip(_values(self.cost), ("RCU", "WCU", "req"), strict=True) if v]
        slack = sum(_values(self.tolerance)) / per
        return f"{self.why} ({', '.join(sized) or '±0'}{f' ± {slack:g}' if slack else ''}{' per op' * (per != 1)})"


def _values(cost: Cost) -> tuple[float, float, float]:
    return cost.rcu, cost.wcu, cost.requests or 0


@dataclass(frozen=True)
class Verdict:
    """A measured figure against DynamoDB's floor, Local's floor (its difference named) and named extras."""

    name: str
    measured: Cost
    floor: Cost
    local: Difference | None = None
    extras: tuple[Difference, ...] = ()
    per: float = 1  # the figures are shown per this many operations

    @property
    def local_floor(self) -> Cost:
        return self.floor + self.local.cost if self.local else self.floor

    def _fields(self, cost: Cost) -> tuple[float, ...]:
        return (cost.rcu, cost.wcu) + (() if self.floor.requests is None else (cost.requests or 0,))

    @property
    def status(self) -> str:
        measured, least = self._fields(self.measured), self._fields(self.local_floor)
        if all(math.isclose(m, f, abs_tol=1e-6) for m, f in zip(measured, least, strict=True)):
            return "floor"
        if any(m < f - 1e-6 for m, f in zip(measured, least, strict=True)):
            return "BELOW FLOOR"
        expected = self._fields(total([self.local_floor, *(e.cost for e in self.extras)]))
        slack = self._fields(total(e.tolerance for e in self.extras))
        fits = all(abs(m - e) <= s + 1e-6 for m, e, s in zip(measured, expected, slack, strict=True))
        return "explained" if fits and self.extras else "NOT EXPLAINED"

    @property
    def ok(self) -> bool:
        return self.status in ("floor", "explained")

    @property
    def ratio(self) -> float | None:
        return round(self.measured.units / self.local_floor.units, 3) if self.local_floor.units else None

    def notes(self) -> list[str]:
        lines = [f"Local's floor: {self.local.text(self.per)}"] if self.local else []
        lines += [f"above the floor: {extra.text(self.per)}" for extra in self.extras if self.status != "floor"]
        if not self.ok:
            lines.append(
                f"{self.status}: measured {self._fields(self.measured)} against floor "
                f"{self._fields(self.local_floor)} (Local) with the differences above"
            )
        return lines

    def cells(self) -> dict[str, Any]:
        """The row's floor columns (``FLOOR_COLUMNS``, ``REQUEST_COLUMNS``), per operation."""
        local = self.local.cost if self.local else Cost()
        per = self.per
        with_requests = self.floor.requests is not None
        return {
            "m_rcu": self.measured.rcu / per,
            "m_wcu": self.measured.wcu / per,
            "m_req": f"{(self.measured.requests or 0) / per:.2f}" if with_requests else "",
            "f_rcu": self.floor.rcu / per,
            "f_wcu": self.floor.wcu / per,
            "f_req": f"{(self.floor.requests or 0) / per:.2f}" if with_requests else "",
            "l_rcu": f"{self.local_floor.rcu / per:.2f}" if local.rcu else "=",
            "l_wcu": f"{self.local_floor.wcu / per:.2f}" if local.wcu else "=",
            "ratio": "-" if self.ratio is None else f"{self.ratio:.2f}",
            "verdict": self.status,
        }

    def as_dict(self) -> dict[str, Any]:
        def plain(cost: Cost) -> dict[str, Any]:
            return {"rcu": round(cost.rcu, 4), "wcu": round(cost.wcu, 4), "requests": cost.requests}

        return {
            "figure": self.name,
            "per": self.per,
            "measured": plain(self.measured),
            "floor_dynamodb": plain(self.floor),
            "floor_local": plain(self.local_floor),
            "local_difference": self.local.why if self.local else None,
            "explained_by": [{"why": e.why, **plain(e.cost), "tolerance": plain(e.tolerance)} for e in self.extras],
            "ratio_to_local_floor": self.ratio,
            "status": self.status,
        }


# Measured, DynamoDB's floor, Local's floor ("=" where it is DynamoDB's), ratio to Local's floor, verdict.
FLOOR_COLUMNS: list[Column] = [
    ("RCU", "m_rcu", ".2f"),
    ("min RCU", "f_rcu", ".2f"),
    ("Local min", "l_rcu", ">"),
    ("WCU", "m_wcu", ".2f"),
    ("min WCU", "f_wcu", ".2f"),
    ("Local min", "l_wcu", ">"),
    ("× Local min", "ratio", ">"),
    ("floor", "verdict", ">"),
]
REQUEST_COLUMNS: list[Column] = [("req", "m_req", ">"), ("min req", "f_req", ">")]
FLOOR_LEGEND = (
    "min = DynamoDB's floor from AWS's pricing rules; Local min = what DynamoDB Local charges for it where it "
    "differs ('=' same); × Local min = (RCU + WCU) / Local's floor"
)


def print_notes(verdicts: Sequence[Verdict]) -> None:
    noted = [(v.name, v.notes()) for v in verdicts if v.local or v.status != "floor"]
    if noted:
        print(f"\nwhere a figure is not exactly DynamoDB's floor ({FLOOR_LEGEND}):")
        for name, lines in noted:
            print(f"  {name}: " + "\n      ".join(lines))


# ---------------------------------------------------------------------------- item sizes


def number_size(raw: str) -> int:
    """A number: 1 byte per two significant digits (leading and trailing zeros trimmed), plus 1."""
    digits = len(format(Decimal(raw), "f").lstrip("-").replace(".", "").strip("0")) or 1
    return (digits + 1) // 2 + 1


def _raw_bytes(raw: Any) -> int:
    """A binary value's raw length (botocore hands bytes; a base64 text is decoded first)."""
    return len(raw) if isinstance(raw, bytes | bytearray) else len(base64.b64decode(raw))


def attribute_size(value: Mapping[str, Any]) -> int:
    """DynamoDB's size of an attribute value, without its name (the documented rules, ``item_size``)."""
    (tag, raw), *_ = value.items()
    if tag == "S":
        return len(raw.encode())
    if tag == "B":
        return _raw_bytes(raw)
    if tag == "N":
        return number_size(raw)
    if tag in ("BOOL", "NULL"):
        return 1
    if tag == "M":  # 3 bytes, and each element its name, its value and 1 byte
        return 3 + sum(len(k.encode()) + attribute_size(v) + 1 for k, v in raw.items())
    if tag == "L":  # 3 bytes, and each element its value and 1 byte
        return 3 + sum(attribute_size(v) + 1 for v in raw)
    if tag == "NS":
        return sum(number_size(x) for x in raw)
    if tag == "BS":
        return sum(_raw_bytes(x) for x in raw)
    if tag == "SS":
        return sum(len(x.encode()) for x in raw)
    raise ValueError(f"unknown attribute type {tag!r}")


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """DynamoDB's size of an item: each attribute's name (UTF-8 bytes) and value."""
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def model_size(items: Iterable[Any]) -> int:
    """DynamoDB's size of PynamoDB items, summed."""
    return sum(item_size(item.serialize()) for item in items)


# ---------------------------------------------------------------------------- index entries

ALL = "ALL"
KEYS_ONLY = "KEYS_ONLY"


def index_entry(
    item: Mapping[str, Mapping[str, Any]] | None,
    table_keys: Sequence[str],
    index_keys: Sequence[str],
    projection: str | Iterable[str] = KEYS_ONLY,
) -> dict[str, Mapping[str, Any]] | None:
    """The entry ``item`` has in a global secondary index, or None (no item, or an index key missing: sparse).

    ``projection``: ``KEYS_ONLY`` (the table's and the index's keys), ``ALL`` (the whole item) or
    the names of the attributes an ``INCLUDE`` index projects besides the keys.
    """
    if item is None or any(key not in item for key in index_keys):
        return None
    if projection == ALL:
        return dict(item)
    kept = {*table_keys, *index_keys, *(() if projection == KEYS_ONLY else projection)}
    return {name: value for name, value in item.items() if name in kept}


def index_write_units(
    before: Mapping[str, Mapping[str, Any]] | None,
    after: Mapping[str, Mapping[str, Any]] | None,
    table_keys: Sequence[str],
    index_keys: Sequence[str],
    projection: str | Iterable[str] = KEYS_ONLY,
    *,
    transactional: bool = False,
) -> int:
    """What a write of an item from ``before`` to ``after`` (None: absent) costs in one index, 1 WCU per KB.

    A new entry is a put; a vanished one a delete; an index key that changes is a delete of the old
    entry and a put of the new; an entry whose projected attributes change is rewritten (the larger
    of the two); an entry that stays the same costs nothing. ``transactional``: DynamoDB charges
    index entries written by a transaction like any other (1 WCU per KB); the flag is DynamoDB
    Local's difference (``LOCAL_TRANSACT_INDEX``), which charges them twice.
    """
    projected = list(projection) if not isinstance(projection, str) else projection
    old = index_entry(before, table_keys, index_keys, projected)
    new = index_entry(after, table_keys, index_keys, projected)
    units = 0
    if old is not None and new is not None and all(old[k] == new[k] for k in index_keys):
        if old != new:
            units = update_units(item_size(old), item_size(new))
    else:
        units = (write_units(item_size(old)) if old is not None else 0) + (
            write_units(item_size(new)) if new is not None else 0
        )
    return units * (2 if transactional else 1)
