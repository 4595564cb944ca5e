"""Capacity per call of every access pattern of ddbmodels, beside its theoretical minimum.

One representative, single-writer workload runs through the public functions of ``ddbmodels``,
all inside one ``capacity.measure()``: a project of one tenant, ``--issues`` issues created, read,
edited, paged, counted and one tombstoned; ``--orders`` orders placed in each numbering mode
(atomic and gapless), read, found by number, moved on, paged, read by time (sharded index);
attachments through every transition (directly and through ``attachment_flow`` with a file store
in a temporary directory), listed, found in flight and repaired; leaderboard awards, a revoke, a
sync, a bare score ``ADD``, top 10 and a rank; events put and read back by stream and by day;
the counter, jobs and project-listing patterns. The meter files every DynamoDB call under the
access pattern that made it (``capacity.access_pattern``; ``by_pattern``), and each pattern's
figures are divided by the times it was entered.

Beside each pattern stands its theoretical minimum per call (``MINIMA``: the cost its docstring
states, worked out for the items this run wrote and read — a read is charged at least what it
returns, a Query at least 0.5 RCU, a write 1 WCU per started KB plus its index entries), and the
ratio measured ÷ minimum of capacity units (RCU + WCU). Where the two differ the row says why
(``NOTES``). A pattern with variants of different cost (atomic/gapless numbering, consistent
reads, a status filter, a member's first award) gets one row per variant: the variant's calls are
metered by a nested ``capacity.measure()`` as well, and the variants must add up to the
pattern's figures in the one meter. The run fails (exit 1) when a call went untagged, when the
meter's call counts are not the calls made, or when a result is wrong.

Sharded reads are given something in every shard (assignees, event streams and in-flight
attachments are picked so: the shard suffixes are crc32s), because DynamoDB Local charges nothing
for a Query that finds nothing where AWS charges it 0.5 RCU; so the figures are stable and the
same as AWS's, except where a note says otherwise. ``attachment_ops.attachments_in_flight``
returns a lazy iterator whose Queries run after its ``access_pattern`` has exited, so the bench
consumes it inside ``access_pattern("attachments.in_flight")`` (as ``capacity`` advises).

Printed on stdout: the table, the notes of the rows that differ from their minimum, and last
exactly one line of JSON. ``--plot PATH`` draws measured and minimum units per call as a
horizontal bar chart (``docs/capacity_by_pattern.png``). Exit status 0 when every check held, 1
when not, 2 when refused. A few seconds on a warm DynamoDB Local.

    python -m devtools.services run -- .venv/bin/python bench/patterns.py
"""

from __future__ import annotations

import argparse
import io
import itertools
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/patterns.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from pynamodb.models import Model  # noqa: E402

from ddbmodels import attachments, events, jobs, orders, scores  # noqa: E402
from ddbmodels import issues as ddb_issues  # noqa: E402
from ddbmodels.attachments import ATTACHED, IN_FLIGHT, IN_FLIGHT_SHARDS, INTERMEDIATE, AttachmentItem  # noqa: E402
from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.core.tables import describe_table  # noqa: E402
from ddbmodels.issues import PRIORITIES, IssueItem  # noqa: E402
from ddbmodels.orders import DEFAULT_SHARDS as ORDER_SHARDS  # noqa: E402
from ddbmodels.orders import OrderItem, shard_keys  # noqa: E402
from ddbmodels.patterns import counters, leaderboard, sparse_index  # noqa: E402
from ddbmodels.scores import DEFAULT_SHARDS as BOARD_SHARDS  # noqa: E402
from ddbmodels.scores import POINTS  # noqa: E402
from devtools import bench  # noqa: E402

TENANT, PROJECT = "bench-patterns", "PAT"
CUSTOMERS = ("bench-a", "bench-b")
AWARDED = 8  # issues 1..8 resolved and awarded: two per assignee (a first award, then a later one)
PAGE_SIZE = 25
EVENT_SHARDS = events.DEFAULT_SHARDS
IN_FLIGHT_QUERIES = len(INTERMEDIATE) * IN_FLIGHT_SHARDS  # one Query per state and shard


def covering(names: Iterable[str], shard: Callable[[str], int], shards: int) -> list[str]:
    """The first names that fall into distinct shards, one per shard (crc32 suffixes: the same in every run).

    DynamoDB Local charges nothing for a Query that finds nothing, where AWS charges at least 0.5 RCU;
    with something in every shard, the sharded reads cost the same on both.
    """
    chosen: dict[int, str] = {}
    for name in names:
        chosen.setdefault(shard(name), name)
        if len(chosen) == shards:
            return list(chosen.values())
    raise ValueError("no names for every shard")


ASSIGNEES = covering((f"dev{n}" for n in range(1, 100)), lambda u: leaderboard.shard_of(u, BOARD_SHARDS), BOARD_SHARDS)
STREAMS = covering(
    (f"{TENANT}#{PROJECT}#{n}" for n in range(1, 100)), lambda s: events.shard_of(s, EVENT_SHARDS), EVENT_SHARDS
)


class CheckFailed(Exception):
    """A result, a tag or a count the benchmark verifies did not hold."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


# ---------------------------------------------------------------------------- sizes and minima


def model_bytes(items: Iterable[Model]) -> int:
    return sum(bench.item_size(item.serialize()) for item in items)


def event_bytes(found: Iterable[events.Event]) -> int:
    """The stored size of events: the item ``event_put`` wrote, rebuilt from what was read."""
    return sum(
        bench.item_size(
            {
                "s": {"S": e.stream},
                "t": {"S": e.t},
                "d": {"S": events.day_key(e.tenant, e.at.date(), events.shard_of(e.stream, EVENT_SHARDS))},
                "kind": {"S": e.kind},
                "actor": {"S": e.actor},
                "tenant": {"S": e.tenant},
                "data": events.to_attribute(e.data),
            }
        )
        for e in found
    )


def read_units(size: int, *, consistent: bool = False) -> float:
    """One request reading ``size`` bytes: per started 4 KB 0.5 RCU (1 consistent), at least one unit."""
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


@dataclass(frozen=True)
class Cost:
    """Capacity of one call or many: read units, write units, requests."""

    rcu: float = 0.0
    wcu: float = 0.0
    requests: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.rcu + other.rcu, self.wcu + other.wcu, self.requests + other.requests)


def per_shard(items: Iterable[OrderItem], shards: int) -> Cost:
    """One Query per time shard, each charged at least 0.5 RCU for what it returned."""
    sizes = Counter[str]()
    for order in items:
        sizes[str(order.time_shard)] += bench.item_size(order.serialize())
    check(set(sizes) <= set(shard_keys(shards)), f"orders from unknown shards {set(sizes)}")
    return Cost(sum(read_units(sizes[key]) for key in shard_keys(shards)), 0, shards)


@dataclass(frozen=True)
class Minimum:
    """A pattern's theoretical minimum for one call, from what the call returned (or a basis given)."""

    why: str
    per_call: Callable[[Any, Any], Cost]  # (the call's result, the basis it was given) → its minimum


def fixed(rcu: float, wcu: float, requests: int) -> Callable[[Any, Any], Cost]:
    return lambda _result, _basis: Cost(rcu, wcu, requests)


def in_flight_reads(found: Iterable[AttachmentItem]) -> Cost:
    """One Query per state and shard of the in_flight index, each charged for what it returned (≥ 0.5 RCU)."""
    sizes = Counter[str]()
    for item in found:
        sizes[str(item.in_flight_key)] += bench.item_size(item.serialize())
    keys = [key for state in INTERMEDIATE for key in IN_FLIGHT.partitions(state)]
    check(set(sizes) <= set(keys), f"in-flight items from unknown partitions {set(sizes)}")
    return Cost(sum(read_units(sizes[key]) for key in keys), 0, len(keys))


# The docstring's cost of each pattern, per call. Items here are ≤ 1 KB and index entries small.
MINIMA: dict[str, Minimum] = {
    "projects.create": Minimum(
        "PutItem SK 0 ≤ 1 KB (1 WCU) + its sparse `projects` index entry (1 WCU)", fixed(0, 2, 1)
    ),
    "projects.get": Minimum("GetItem ≤ 4 KB, eventually consistent", fixed(0.5, 0, 1)),
    "projects.list": Minimum(
        "Query of the `projects` index (0.5 RCU) + BatchGetItem 0.5 RCU per project",
        lambda found, _: Cost(0.5 + 0.5 * len(found), 0, 2),
    ),
    "projects.refresh_counts": Minimum(
        "Query of the whole collection (0.5 RCU per 4 KB of the issues) + UpdateItem SK 0 (1 WCU)",
        lambda _, issues: Cost(read_units(model_bytes(issues)), 1, 2),
    ),
    "projects.enumerate": Minimum("Scan of the sparse KEYS_ONLY index: one page ≤ 4 KB", fixed(0.5, 0, 1)),
    "issues.create": Minimum(
        "consistent Query Limit 1 of the top item ≤ 4 KB (1 RCU) + conditional PutItem ≤ 1 KB (1 WCU)",
        fixed(1, 1, 2),
    ),
    "issues.get (eventual)": Minimum("GetItem ≤ 4 KB, eventually consistent", fixed(0.5, 0, 1)),
    "issues.get (consistent)": Minimum("GetItem ≤ 4 KB, strongly consistent", fixed(1, 0, 1)),
    "issues.update": Minimum("conditional UpdateItem of an issue ≤ 1 KB (no index holds issues)", fixed(0, 1, 1)),
    "issues.tombstone": Minimum("conditional UpdateItem ≤ 1 KB", fixed(0, 1, 1)),
    "issues.page": Minimum(
        "one Query, 0.5 RCU per started 4 KB of the issues shown",
        lambda page, _: Cost(read_units(model_bytes(page.items)), 0, 1),
    ),
    "issues.page (status filter)": Minimum(
        "one Query, 0.5 RCU per started 4 KB of the issues shown",
        lambda page, _: Cost(read_units(model_bytes(page.items)), 0, 1),
    ),
    "issues.numbers": Minimum(
        "consistent Query: 1 RCU per 4 KB of the whole issues (a projection does not lower the charge)",
        lambda _, issues: Cost(read_units(model_bytes(issues), consistent=True), 0, 1),
    ),
    "orders.place (atomic)": Minimum(
        "UpdateItem ADD of the counter (1 WCU) + PutItem ≤ 1 KB (1 WCU) + by_time and by_number entries (2 WCU)",
        fixed(0, 4, 2),
    ),
    "orders.place (gapless)": Minimum(
        "consistent GetItem of the counter (1 RCU) + TransactWriteItems: 2 WCU × (counter, order) + by_time and "
        "by_number entries (1 WCU each)",
        fixed(1, 6, 2),
    ),
    "orders.get": Minimum("GetItem ≤ 4 KB, eventually consistent", fixed(0.5, 0, 1)),
    "orders.find": Minimum("Query by_number Limit 1 (0.5 RCU) + GetItem (0.5 RCU)", fixed(1, 0, 2)),
    "orders.transition": Minimum(
        "conditional UpdateItem ≤ 1 KB (1 WCU) + its by_time entry (ALL, 1 WCU)", fixed(0, 2, 1)
    ),
    "orders.customer_page": Minimum(
        "one Query, 0.5 RCU per started 4 KB of the orders shown",
        lambda page, _: Cost(read_units(model_bytes(page.items)), 0, 1),
    ),
    "orders.range": Minimum(
        f"one Query per time shard ({ORDER_SHARDS}), each 0.5 RCU per started 4 KB of what it returns",
        lambda found, _: per_shard(found, ORDER_SHARDS),
    ),
    "orders.latest": Minimum(
        f"one Query per time shard ({ORDER_SHARDS}), Limit K, each ≥ 0.5 RCU",
        lambda found, _: per_shard(found, ORDER_SHARDS),
    ),
    "orders.oldest": Minimum(
        f"one Query per time shard ({ORDER_SHARDS}), Limit K, each ≥ 0.5 RCU",
        lambda found, _: per_shard(found, ORDER_SHARDS),
    ),
    "attachments.transition": Minimum(
        "one conditional PutItem/UpdateItem ≤ 1 KB (1 WCU) + the in_flight entry put or deleted (1 WCU)",
        fixed(0, 2, 1),
    ),
    "attachments.attach": Minimum("PutItem Attaching (2 WCU) + UpdateItem Attached (2 WCU)", fixed(0, 4, 2)),
    "attachments.detach": Minimum("UpdateItem Detaching (2 WCU) + UpdateItem Detached (2 WCU)", fixed(0, 4, 2)),
    "attachments.get": Minimum("GetItem ≤ 4 KB, eventually consistent", fixed(0.5, 0, 1)),
    "attachments.list": Minimum(
        "one Query, 0.5 RCU per started 4 KB of the attachments shown",
        lambda found, _: Cost(read_units(model_bytes(found)), 0, 1),
    ),
    "attachments.in_flight": Minimum(
        f"one Query of the sparse index per state × shard ({IN_FLIGHT_QUERIES}), each ≥ 0.5 RCU",
        lambda found, _: in_flight_reads(found),
    ),
    "attachments.reconcile": Minimum(
        f"the in_flight Queries ({IN_FLIGHT_QUERIES} × 0.5 RCU); per stuck Attaching claim (3 WCU) + fail (2 WCU), "
        "per Detaching detach complete (2 WCU)",
        lambda report, found: in_flight_reads(found)
        + Cost(0, 5 * report.rolled_back + 2 * report.detached, 2 * report.rolled_back + report.detached),
    ),
    "leaderboard.award (first of a member)": Minimum(
        "TransactWriteItems: 2 WCU × (issue checked, award put, score updated) + the new `top` entry (1 WCU)",
        fixed(0, 7, 1),
    ),
    "leaderboard.award (member scored)": Minimum(
        "TransactWriteItems: 2 WCU × 3 items + the `top` entry moved: delete + put (2 WCU)",
        fixed(0, 8, 1),
    ),
    "leaderboard.award_get": Minimum("GetItem ≤ 4 KB, strongly consistent", fixed(1, 0, 1)),
    "leaderboard.revoke": Minimum(
        "consistent GetItem of the award (1 RCU) + TransactWriteItems: 2 WCU × 3 items + the `top` entry moved (2 WCU)",
        fixed(1, 8, 2),
    ),
    "leaderboard.sync": Minimum("already awarded: the consistent GetItem of the award only", fixed(1, 0, 1)),
    "leaderboard.add": Minimum("UpdateItem ADD ≤ 1 KB (1 WCU) + a new `top` entry (1 WCU)", fixed(0, 2, 1)),
    "leaderboard.score": Minimum("GetItem ≤ 4 KB, eventually consistent", fixed(0.5, 0, 1)),
    "leaderboard.top": Minimum(
        f"one Query per shard ({BOARD_SHARDS}), Limit k + 1 of small KEYS_ONLY entries, each 0.5 RCU",
        fixed(0.5 * BOARD_SHARDS, 0, BOARD_SHARDS),
    ),
    "leaderboard.rank": Minimum(
        f"one COUNT Query per shard ({BOARD_SHARDS}), each ≤ 4 KB of entries counted: 0.5 RCU",
        fixed(0.5 * BOARD_SHARDS, 0, BOARD_SHARDS),
    ),
    "events.put": Minimum("PutItem ≤ 1 KB (1 WCU) + its by_day entry (1 WCU)", fixed(0, 2, 1)),
    "events.stream": Minimum(
        "Query of the current month's table, 0.5 RCU per started 4 KB of the events returned",
        lambda found, _: Cost(read_units(event_bytes(found)), 0, 1),
    ),
    "events.by_day": Minimum(
        f"one Query of by_day per shard ({EVENT_SHARDS}), each ≥ 0.5 RCU", fixed(0.5 * EVENT_SHARDS, 0, EVENT_SHARDS)
    ),
    "counters.next": Minimum("UpdateItem ADD ≤ 1 KB", fixed(0, 1, 1)),
    "counters.value": Minimum("GetItem ≤ 4 KB, strongly consistent", fixed(1, 0, 1)),
    "jobs.fence": Minimum("UpdateItem ≤ 1 KB (ADD token / conditional SET)", fixed(0, 1, 1)),
    "jobs.checkpoint": Minimum("conditional UpdateItem ≤ 1 KB", fixed(0, 1, 1)),
    "jobs.state": Minimum("GetItem ≤ 4 KB, strongly consistent", fixed(1, 0, 1)),
}

# Why a measured figure differs from its minimum (shown only for the rows where it does).
LOCAL_TRANSACTION = "DynamoDB Local charges an index entry written by a transaction twice, like the items"
NOTES: dict[str, str] = {
    "issues.page": "reads size + 1 issues (one more tells whether an older page exists); on the first page the "
    "tombstoned top issue is read and filtered out too, which takes a second request (Limit counts items read)",
    "issues.page (status filter)": "the FilterExpression reads every issue it discards (an index per status would not)",
    "orders.customer_page": "reads size + 2 orders (the cursor's own order again, and one to tell a next page)",
    "orders.latest": "each shard reads up to K orders to keep K overall",
    "orders.oldest": "each shard reads up to K orders to keep K overall",
    "events.stream": "fewer than `limit` events this month, so the previous month's table is asked too: it does "
    "not exist, one more request answered with an error and no capacity",
    "orders.place (gapless)": f"{LOCAL_TRANSACTION} (2 × 2 WCU for by_time and by_number)",
    "leaderboard.award (first of a member)": f"{LOCAL_TRANSACTION} (2 WCU for the new `top` entry)",
    "leaderboard.award (member scored)": f"{LOCAL_TRANSACTION} (2 × 2 WCU to move the `top` entry)",
    "leaderboard.revoke": f"{LOCAL_TRANSACTION} (2 × 2 WCU to move the `top` entry)",
}


# ---------------------------------------------------------------------------- the workload


class Workload:
    """Calls ddbmodels, counts them per row, adds up their minima, meters the variants on their own."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.minimum: dict[str, Cost] = {}
        self.variants: dict[str, capacity.CapacityMeter] = {}

    def __call__(self, row: str, fn: Callable[..., Any], *args: Any, basis: Any = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` as one call of ``row``; its minimum from the result and ``basis``."""
        with capacity.measure() if pattern_of(row) in SPLIT else nullcontext() as meter:
            result = fn(*args, **kwargs)
        if isinstance(meter, capacity.CapacityMeter):
            self.variants.setdefault(row, capacity.CapacityMeter()).add(meter)
        self.calls[row] += 1
        self.minimum[row] = self.minimum.get(row, Cost()) + MINIMA[row].per_call(result, basis)
        return result


def pattern_of(row: str) -> str:
    return row.split(" ", 1)[0]


# Patterns with more than one row: each of their rows is metered on its own as well.
SPLIT = {pattern for pattern, rows in Counter(pattern_of(row) for row in MINIMA).items() if rows > 1}


def run_projects_and_issues(run: Workload, count: int) -> list[IssueItem]:
    run("projects.create", ddb_issues.project_create, tenant=TENANT, key=PROJECT, name="Patterns", created_by="bench")
    issues: list[IssueItem] = []
    for i in range(count):
        claimed = run(
            "issues.create",
            ddb_issues.issue_create,
            tenant=TENANT,
            project_key=PROJECT,
            title=f"Issue {i + 1}: measure the access patterns",
            reporter="bench",
            description="Representative text of a short issue.",
            priority=PRIORITIES[i // len(ASSIGNEES) % len(PRIORITIES)],
            assignee=ASSIGNEES[i % len(ASSIGNEES)],
        )
        issues.append(claimed.item)
    check([int(i.number) for i in issues] == list(range(1, count + 1)), "issue numbers are not 1..N")
    for issue in issues:
        got = run(
            "issues.get (eventual)", ddb_issues.issue_get, tenant=TENANT, project_key=PROJECT, number=issue.number
        )
        check(got is not None and got.title == issue.title, f"issue {issue.number} read back wrong")
    for issue in issues[:5]:
        run(
            "issues.get (consistent)",
            ddb_issues.issue_get,
            tenant=TENANT,
            project_key=PROJECT,
            number=issue.number,
            consistent=True,
        )
    for issue in issues[AWARDED : AWARDED + 8]:
        run(
            "issues.update",
            ddb_issues.issue_update,
            issue,
            title=f"{issue.title} (edited)",
            description="Edited text.",
            priority=issue.priority,
            assignee=issue.assignee,
            labels=["bench"],
        )
    for issue in issues[:AWARDED]:
        run("issues.update", ddb_issues.issue_change_status, issue, to="resolved")
    run("issues.tombstone", ddb_issues.issue_tombstone, issues[-1], by="bench")

    first = run("issues.page", ddb_issues.issue_page, tenant=TENANT, project_key=PROJECT, size=PAGE_SIZE)
    check(len(first.items) == min(PAGE_SIZE, count - 1), "the first page is not full")
    if first.older_than is not None:
        run(
            "issues.page",
            ddb_issues.issue_page,
            tenant=TENANT,
            project_key=PROJECT,
            size=PAGE_SIZE,
            after=first.older_than,
        )
    resolved = run(
        "issues.page (status filter)",
        ddb_issues.issue_page,
        tenant=TENANT,
        project_key=PROJECT,
        status="resolved",
        size=PAGE_SIZE,
    )
    check(len(resolved.items) == AWARDED, "the status filter did not find the resolved issues")
    numbers = run("issues.numbers", ddb_issues.issue_numbers, tenant=TENANT, project_key=PROJECT, basis=issues)
    check(numbers == list(range(1, count + 1)), "issue numbers (tombstone included) are not 1..N")
    counts = run("projects.refresh_counts", ddb_issues.project_counts_refresh, tenant=TENANT, key=PROJECT, basis=issues)
    check(counts["resolved"] == AWARDED and sum(counts.values()) == count - 1, f"wrong counts {counts}")
    check(run("projects.get", ddb_issues.project_get, tenant=TENANT, key=PROJECT) is not None, "project not found")
    check(len(run("projects.list", ddb_issues.project_list, tenant=TENANT)) == 1, "project list is not one project")
    check((TENANT, PROJECT) in run("projects.enumerate", ddb_issues.all_project_keys), "enumerate missed the project")
    return issues


def run_orders(run: Workload, count: int) -> None:
    placed: list[OrderItem] = []
    for mode in ("atomic", "gapless"):
        for i in range(count):
            claimed = run(
                f"orders.place ({mode})",
                orders.order_place,
                customer=CUSTOMERS[i % len(CUSTOMERS)],
                product="seats",
                quantity=1 + i % 9,
                delivery="standard",
                placed_by="bench",
                mode=mode,
            )
            placed.append(claimed.item)
    check(sorted(int(o.number) for o in placed) == list(range(1, 2 * count + 1)), "order numbers are not 1..N")
    for order in placed:
        got = run("orders.get", orders.order_get, customer=order.customer, placed=order.placed)
        check(got is not None and got.number == order.number, f"order {order.number} read back wrong")
        found = run("orders.find", orders.order_find, number=int(order.number), customer=order.customer)
        check(found is not None and found.placed == order.placed, f"order {order.number} not found by number")
    for order in placed[:4]:
        run("orders.transition", orders.order_transition, order, to="paid", by="bench")
    mine = [o for o in placed if o.customer == CUSTOMERS[0]]
    page = run("orders.customer_page", orders.customer_orders_page, customer=CUSTOMERS[0], size=PAGE_SIZE)
    check(len(page.items) == min(PAGE_SIZE, len(mine)), "a customer's page is not all their orders")
    now = datetime.now(UTC)
    found = run("orders.range", orders.orders_in_range, since=now - timedelta(days=7), until=now + timedelta(minutes=1))
    check(len(found) == len(placed), "the last 7 days are not every order")
    check(len(run("orders.latest", orders.orders_latest, limit=10)) == min(10, len(placed)), "latest 10")
    check(len(run("orders.oldest", orders.orders_oldest, limit=10)) == min(10, len(placed)), "oldest 10")


def run_attachments(run: Workload, store_dir: str) -> None:
    def begin(name: str, number: int = 1) -> AttachmentItem:
        content = f"contents of {name}".encode()
        size, sha = attachments.digest(io.BytesIO(content))
        return run(  # type: ignore[no-any-return]
            "attachments.transition",
            attachments.attachment_begin,
            tenant=TENANT,
            project_key=PROJECT,
            number=number,
            filename=name,
            size=size,
            sha256=sha,
            content_type="text/plain",
            by="bench",
        )

    def transition(fn: Callable[..., AttachmentItem], item: AttachmentItem, **kwargs: Any) -> None:
        run("attachments.transition", fn, item, **kwargs)

    def shard(item: AttachmentItem) -> int:
        return sparse_index.shard_of(IN_FLIGHT.shard_key(item), IN_FLIGHT.shards)

    # Issue 1: one attachment through every transition, one left attached.
    detached = begin("detached.txt")
    transition(attachments.attachment_complete, detached)
    transition(attachments.attachment_detach_begin, detached, by="bench")
    transition(attachments.attachment_detach_complete, detached)
    kept = begin("kept.txt")
    transition(attachments.attachment_complete, kept)
    # Issue 2: what crashes leave behind, one per in_flight shard and state (ids are random, so
    # attachments are begun until each shard has one): stuck in Attaching (no file was stored),
    # then stuck in Detaching (the file was never deleted). Extras are simply completed.
    stuck: dict[int, AttachmentItem] = {}
    leaving: dict[int, AttachmentItem] = {}
    spare: list[AttachmentItem] = []
    for n in range(200):
        if len(stuck) == len(leaving) == IN_FLIGHT_SHARDS:
            break
        item = spare.pop() if spare and len(stuck) == IN_FLIGHT_SHARDS else begin(f"crashed-{n}.txt", number=2)
        if len(stuck) < IN_FLIGHT_SHARDS:
            if shard(item) in stuck:
                spare.append(item)  # completed, or left Detaching, once every shard has its stuck one
            else:
                stuck[shard(item)] = item
            continue
        transition(attachments.attachment_complete, item)
        if shard(item) not in leaving:
            transition(attachments.attachment_detach_begin, item, by="bench")
            leaving[shard(item)] = item
    check(len(stuck) == len(leaving) == IN_FLIGHT_SHARDS, "random attachment ids never covered every shard")
    for item in spare:
        transition(attachments.attachment_complete, item)

    store = attachments.LocalBlobStore(store_dir)

    def attach(name: str) -> AttachmentItem:
        return run(  # type: ignore[no-any-return]
            "attachments.attach",
            attachments.attach,
            store,
            tenant=TENANT,
            project_key=PROJECT,
            number=1,
            filename=name,
            content=io.BytesIO(f"file {name}".encode()),
            content_type="text/plain",
            by="bench",
            max_bytes=1 << 20,
        )

    flowed = attach("flow-detached.txt")
    run("attachments.detach", attachments.detach, store, flowed, by="bench")
    attached = attach("flow-kept.txt")
    for item in (kept, attached):
        got = run("attachments.get", attachments.attachment_get_by_key, item.pk, item.attachment_id)
        check(got is not None and got.state == ATTACHED, f"{item.filename} is not attached")
    shown = run("attachments.list", attachments.attachment_list, tenant=TENANT, project_key=PROJECT, number=1)
    check({a.filename for a in shown} == {"kept.txt", "flow-kept.txt"}, "the list is not the attached files")

    soon = datetime.now(UTC) + timedelta(seconds=5)
    # attachments_in_flight returns a lazy merge of lazy Queries: they run while it is consumed,
    # after its access_pattern has exited, so the consumption is wrapped in the same pattern
    # (capacity.access_pattern: "not for generator functions … wrap the consuming code instead").
    with capacity.access_pattern("attachments.in_flight"):
        in_flight = run("attachments.in_flight", lambda: list(attachments.attachments_in_flight(before=soon)))
    expected = {i.attachment_id for i in (*stuck.values(), *leaving.values())}
    check({i.attachment_id for i in in_flight} == expected, "in_flight did not find exactly the stuck items")
    report = run("attachments.reconcile", attachments.reconcile, store, before=soon, basis=in_flight)
    done = (report.rolled_back, report.detached, report.errors, report.moved_on)
    check(done == (IN_FLIGHT_SHARDS, IN_FLIGHT_SHARDS, 0, 0), f"reconcile did {report.as_dict()}")


def run_leaderboard(run: Workload, issues: list[IssueItem]) -> None:
    scored: set[str] = set()
    for issue in issues[:AWARDED]:
        row = (
            "leaderboard.award (member scored)" if issue.assignee in scored else "leaderboard.award (first of a member)"
        )
        change = run(row, scores.award_issue, issue)
        check(change.outcome is scores.Outcome.AWARDED, f"{issue.reference} was not awarded")
        scored.add(str(issue.assignee))
    award = run("leaderboard.award_get", scores.award_get, tenant=TENANT, project_key=PROJECT, number=3)
    check(award is not None and award.username == issues[2].assignee, "the award of issue 3 is not its assignee's")
    reopened = run("issues.update", ddb_issues.issue_change_status, issues[0], to="open")
    check(run("leaderboard.revoke", scores.revoke_issue, reopened).changed, "the award was not revoked")
    outcome = run("leaderboard.sync", scores.sync_issue, issues[1]).outcome
    check(outcome is scores.Outcome.ALREADY_AWARDED, f"sync of an awarded issue did {outcome}")
    run("leaderboard.add", scores.score_add, tenant=TENANT, username="newcomer", points=1)
    score = run("leaderboard.score", scores.score_get, tenant=TENANT, username=ASSIGNEES[1])
    check(score is not None and int(score.score) > 0, f"{ASSIGNEES[1]} has no score")
    expected = Counter[str]({"newcomer": 1})
    for issue in issues[1:AWARDED]:  # issue 1's award was revoked
        expected[str(issue.assignee)] += POINTS[issue.priority]
    top = run("leaderboard.top", scores.top_scores, tenant=TENANT, k=10)
    check({r.member: r.score for r in top} == dict(expected), f"the top is {top}, expected {dict(expected)}")
    above = run("leaderboard.rank", scores.rank_above, tenant=TENANT, score=1)
    check(above.count == sum(1 for s in expected.values() if s > 1), f"{above.count} members score more than 1")


def run_events(run: Workload, count: int) -> None:
    """``count`` events of one issue's stream, and one more of a stream in each other ``by_day`` shard."""
    for i, stream in enumerate([STREAMS[0]] * count + STREAMS[1:]):
        run(
            "events.put",
            events.event_put,
            stream=stream,
            kind="issue.status",
            actor="bench",
            tenant=TENANT,
            data={"from": "open", "to": "in_progress", "n": i},
        )
    found = run("events.stream", events.stream_events, stream=STREAMS[0])
    check(len(found) == count, f"the stream holds {len(found)} events, not {count}")
    day = run("events.by_day", events.tenant_day_events, tenant=TENANT, day=datetime.now(UTC).date())
    check(len(day) == count + len(STREAMS) - 1, "the day misses events")  # (unless the run spans midnight)


def run_small_patterns(run: Workload) -> None:
    for _ in range(3):
        run("counters.next", counters.counter_next, "bench-patterns")
    check(run("counters.value", counters.counter_value, "bench-patterns") == 3, "the counter is not 3")
    token = run("jobs.fence", jobs.fence_acquire, "bench-patterns", "bench")
    run("jobs.fence", jobs.fence_check, "bench-patterns", token)
    run("jobs.checkpoint", jobs.checkpoint_save, "bench-patterns", token, "page-2")
    state = run("jobs.state", jobs.job_state, "bench-patterns")
    check(state is not None and state.checkpoint == "page-2", "the job's checkpoint was not kept")


# ---------------------------------------------------------------------------- figures


def rows_from(meter: capacity.CapacityMeter, run: Workload) -> list[dict[str, Any]]:
    """One row per pattern (or variant), in the order of MINIMA, checked against the calls made."""
    check(capacity.UNTAGGED not in meter.by_pattern, f"untagged calls: {meter.by_pattern.get(capacity.UNTAGGED)}")
    made = Counter[str]()
    for row, calls in run.calls.items():
        made[pattern_of(row)] += calls
    counted = {name: totals.calls for name, totals in meter.by_pattern.items()}
    check(counted == dict(made), f"the meter counted {counted}, the bench made {dict(made)}")
    rows = []
    for row in (r for r in MINIMA if r in run.calls):
        pattern, calls, floor = pattern_of(row), run.calls[row], run.minimum[row]
        totals = run.variants[row].by_pattern[pattern] if row in run.variants else meter.by_pattern[pattern]
        check(totals.calls == calls, f"{row}: {totals.calls} calls metered, {calls} made")
        measured = Cost(totals.rcu, totals.wcu, totals.requests)
        units, least = measured.rcu + measured.wcu, floor.rcu + floor.wcu
        pairs = zip(
            (measured.rcu, measured.wcu, measured.requests), (floor.rcu, floor.wcu, floor.requests), strict=True
        )
        differs = not all(math.isclose(a, b) for a, b in pairs)
        below = measured.rcu < floor.rcu - 1e-9 or measured.wcu < floor.wcu - 1e-9
        note = NOTES.get(row, "NOT EXPLAINED: check the minimum and the pattern") if differs else ""
        if below:
            note = "BELOW the minimum: a Query that found nothing (DynamoDB Local charges it 0), or a wrong minimum"
        rows.append(
            {
                "pattern": row,
                "calls": calls,
                "rcu": round(measured.rcu / calls, 3),
                "wcu": round(measured.wcu / calls, 3),
                "requests": round(measured.requests / calls, 3),
                "min_rcu": round(floor.rcu / calls, 3),
                "min_wcu": round(floor.wcu / calls, 3),
                "min_requests": round(floor.requests / calls, 3),
                "ratio": round(units / least, 3) if least else None,
                "minimum": MINIMA[row].why,
                "note": note,
            }
        )
    for pattern in {pattern_of(r) for r in run.variants}:
        parts = [run.variants[r].by_pattern[pattern] for r in run.variants if pattern_of(r) == pattern]
        whole = meter.by_pattern[pattern]
        summed = (sum(p.rcu for p in parts), sum(p.wcu for p in parts), sum(p.requests for p in parts))
        check(
            all(math.isclose(a, b) for a, b in zip(summed, (whole.rcu, whole.wcu, whole.requests), strict=True)),
            f"{pattern}: its rows add up to {summed}, the meter has {whole.as_dict()}",
        )
    return rows


COLUMNS: list[bench.Column] = [
    ("pattern", "pattern", "s"),
    ("calls", "calls", "d"),
    ("RCU/call", "rcu", ".2f"),
    ("min RCU", "min_rcu", ".2f"),
    ("WCU/call", "wcu", ".2f"),
    ("min WCU", "min_wcu", ".2f"),
    ("req/call", "requests", ".2f"),
    ("min req", "min_requests", ".2f"),
    ("× min", "ratio_text", "s"),
]


def ratio_text(row: Mapping[str, Any]) -> str:
    return "-" if row["ratio"] is None else f"{row['ratio']:.2f}"


def print_rows(rows: list[dict[str, Any]]) -> None:
    cells = [[format({**row, "ratio_text": ratio_text(row)}[key], spec) for _, key, spec in COLUMNS] for row in rows]
    print(bench.align([title for title, _, _ in COLUMNS], cells, left=1))
    noted = [row for row in rows if row["note"]]
    if noted:
        print()
        print("where the measured figures differ from the minimum:")
        for row in noted:
            print(f"  {row['pattern']}: {row['note']}")


CHART_CLIP = 12.0  # units per call: longer bars (the repair job's batch) are cut, their figure written beside


def chart(rows: list[dict[str, Any]], path: Path) -> None:
    """Horizontal bars per pattern: measured RCU + WCU per call (stacked, solid) above the minimum's (hatched)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clip = min(CHART_CLIP, max(max(r["rcu"] + r["wcu"], r["min_rcu"] + r["min_wcu"]) for r in rows))
    positions = list(range(len(rows)))
    height = 0.4
    figure, axes = plt.subplots(figsize=(10, 0.3 * len(rows) + 1.4))
    read, write = "#3b75af", "#ef8636"
    solid: dict[str, Any] = {}
    hatched: dict[str, Any] = {"alpha": 0.35, "hatch": "//"}
    for offset, rcu_key, wcu_key, style, what in (
        (-height / 2, "rcu", "wcu", solid, "measured"),
        (height / 2, "min_rcu", "min_wcu", hatched, "minimum"),
    ):
        ys = [y + offset for y in positions]
        rcu = [min(r[rcu_key], clip) for r in rows]
        wcu = [min(r[wcu_key], clip - c) for r, c in zip(rows, rcu, strict=True)]
        axes.barh(ys, rcu, height, color=read, label=f"{what} RCU", **style)
        axes.barh(ys, wcu, height, left=rcu, color=write, label=f"{what} WCU", **style)
    for y, row in zip(positions, rows, strict=True):
        total, least = row["rcu"] + row["wcu"], row["min_rcu"] + row["min_wcu"]
        text = f"{total:g}" if math.isclose(total, least) else f"{total:g} vs {least:g} (×{row['ratio']:.2f})"
        if total > clip or least > clip:
            text += f" = {row['rcu']:g} RCU + {row['wcu']:g} WCU (bar cut)"
        axes.text(min(max(total, least), clip) + clip * 0.01, y, text, va="center", fontsize=7)
    for y, (upper, lower) in enumerate(itertools.pairwise(rows)):
        if upper["pattern"].split(".")[0] != lower["pattern"].split(".")[0]:
            axes.axhline(y + 0.5, color="grey", linewidth=0.5, alpha=0.5)
    axes.set_yticks(positions, [row["pattern"] for row in rows], fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim(0, clip * 1.3)
    axes.set_xlabel("capacity units per call (RCU + WCU); DynamoDB Local")
    axes.set_title(
        "Capacity per call by access pattern: measured (solid) and theoretical minimum (hatched)", fontsize=10
    )
    axes.grid(axis="x", alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/patterns.py", description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=bench.positive_int, default=30, help="issues created (default: 30)")
    parser.add_argument("--orders", type=bench.positive_int, default=10, help="orders per numbering mode (default: 10)")
    parser.add_argument("--events", type=bench.positive_int, default=5, help="events put (default: 5)")
    parser.add_argument(
        "--plot", type=Path, metavar="PATH", help="draw the chart to PATH (e.g. docs/capacity_by_pattern.png)"
    )
    bench.add_allow_aws(parser)
    args = parser.parse_args(argv)
    if args.issues <= AWARDED + 8:
        parser.error(
            f"--issues must be more than {AWARDED + 8}: {AWARDED} are awarded, 8 more edited, the last deleted"
        )
    if 2 * args.orders < ORDER_SHARDS:  # numbers go round-robin over the time shards
        parser.error(f"--orders must be at least {-(-ORDER_SHARDS // 2)}: every time shard should hold an order")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/patterns.py", allow_aws=args.allow_aws)
    if target is None:
        return 2
    print(f"patterns: {target.endpoint}, tables {target.prefix}*, {args.issues} issues, {args.orders} orders per mode")
    began = time.perf_counter()
    rows: list[dict[str, Any]] = []
    totals: dict[str, Any] = {}
    error: str | None = None
    events_table = events.events_table_name(events.DEFAULT_PERIOD, datetime.now(UTC))
    try:
        tables.create_all()
        events.create_events_table(events_table)
        run = Workload()
        with tempfile.TemporaryDirectory(prefix="bench-patterns-") as store_dir, capacity.measure() as meter:
            issues = run_projects_and_issues(run, args.issues)
            run_orders(run, args.orders)
            run_attachments(run, store_dir)
            run_leaderboard(run, issues)
            run_events(run, args.events)
            run_small_patterns(run)
        totals = meter.as_dict()
        rows = rows_from(meter, run)
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(CheckFailed,))
    finally:
        try:
            deleted = tables.delete_all()
            if describe_table(events_table) is not None:
                connection.client().delete_table(TableName=events_table)
                deleted.append(events_table)
            print(f"deleted {len(deleted)} table(s)", file=sys.stderr)
        except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
            print(f"warning: could not delete the tables {target.prefix}*: {failure}", file=sys.stderr)
    seconds = round(time.perf_counter() - began, 2)
    chart_path: str | None = None
    if rows:
        print_rows(rows)
        if args.plot:
            try:
                chart(rows, args.plot)
                chart_path = str(args.plot)
                print(f"chart: {chart_path}")
            except Exception as failure:  # noqa: BLE001 (a missing chart must not hide the figures)
                print(f"warning: no chart: {failure}", file=sys.stderr)
    figures = {"seconds": seconds, "chart": chart_path, "patterns": rows, "totals": totals}
    return bench.finish("patterns", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
