"""Each row's floor per call: DynamoDB's minimum, DynamoDB Local's difference, and a named overhead.

A floor is the cost the pattern's docstring states, worked out for what the call wrote and read
(the constant ones, ``Fixed``, for items ≤ 1 KB: ``check_item_sizes`` reads every table back
unmetered after the workload and fails the run on a larger item): a read is charged at least what it returns, each
Query or Scan at least 0.5 RCU (1 consistent) per started 4 KB, even when it finds nothing; a
write 1 WCU per started KB plus 1 WCU per index entry put or deleted (2 when an index key moves);
a transaction 2 WCU per item. Where DynamoDB Local charges otherwise the row names it (``local``);
where the pattern reads or asks more than the minimum the row names why (``extra``), and both are
computed for the call, so the measured figure must match them exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ddbmodels import events
from ddbmodels.attachments import IN_FLIGHT, IN_FLIGHT_SHARDS, INTERMEDIATE, AttachmentItem
from ddbmodels.core import connection
from ddbmodels.orders import DEFAULT_SHARDS as ORDER_SHARDS
from ddbmodels.orders import OrderItem, shard_keys
from ddbmodels.scores import DEFAULT_SHARDS as BOARD_SHARDS
from devtools import bench
from devtools.bench import Cost, read_units
from pattern_rows.issue_writes import LOCAL_TRANSACTION, IssueWrite

EVENT_SHARDS = events.DEFAULT_SHARDS
IN_FLIGHT_QUERIES = len(INTERMEDIATE) * IN_FLIGHT_SHARDS  # one Query per state and shard
Part = Callable[[Any, Any], Cost]  # (the call's result, the basis it was given) → its share of the row


@dataclass(frozen=True)
class Row:
    """A row's floor per call (``why``), and the named differences the measured figure may show."""

    why: str
    floor: Part
    local: tuple[str, Part] | None = None  # DynamoDB Local's difference from the floor
    extra: tuple[str, Part] | None = None  # what the pattern reads or asks beyond the floor


@dataclass(frozen=True)
class Fixed:
    """A constant floor, true only for items ≤ 1 KB (reads ≤ 4 KB): ``check_item_sizes`` holds the run to that."""

    cost: Cost

    def __call__(self, _result: Any, _basis: Any) -> Cost:
        return self.cost


def fixed(rcu: float, wcu: float, requests: int) -> Part:
    return Fixed(Cost(rcu, wcu, requests))


def one_query(items: Iterable[Any]) -> Cost:
    return Cost(read_units(bench.model_size(items)), 0, 1)


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


def events_by_shard(found: Iterable[events.Event]) -> list[list[events.Event]]:
    keys = [str(n) for n in range(1, EVENT_SHARDS + 1)]
    return list(by_key(found, lambda e: str(events.shard_of(e.stream, EVENT_SHARDS)), keys).values())


def by_key(items: Iterable[Any], key: Callable[[Any], str], keys: Sequence[str]) -> dict[str, list[Any]]:
    """Items grouped under ``keys`` (each key present, in order); an unknown key fails the run."""
    groups: dict[str, list[Any]] = {k: [] for k in keys}
    for item in items:
        bench.check(key(item) in groups, f"an item from an unknown partition {key(item)}")
        groups[key(item)].append(item)
    return groups


def per_partition(returned: dict[str, list[Any]], read: dict[str, list[Any]] | None = None) -> tuple[Cost, Cost, int]:
    """One Query per partition: the floor (what each returns, ≥ 0.5 RCU), what each read beyond, empty ones."""
    read = read or returned
    floor = bench.total(one_query(items) for items in returned.values())
    actual = bench.total(one_query(items) for items in read.values())
    return floor, Cost(actual.rcu - floor.rcu), sum(1 for items in read.values() if not items)


# ---- Sharded reads: ``basis`` is what each shard's Query read (``Paged``), or None when it is what came back.


@dataclass(frozen=True)
class Paged:
    """What a call's Queries read (per partition, in order), when more than what they returned."""

    read: dict[str, list[Any]]
    empty_requests: int = 0  # requests that found nothing (LastEvaluatedKey at the very end)


def orders_by_shard(items: Iterable[OrderItem]) -> dict[str, list[Any]]:
    return by_key(items, lambda o: str(o.time_shard), shard_keys(ORDER_SHARDS))


def in_flight_by_partition(items: Iterable[AttachmentItem]) -> dict[str, list[Any]]:
    keys = [key for state in INTERMEDIATE for key in IN_FLIGHT.partitions(state)]
    return by_key(items, lambda i: str(i.in_flight_key), keys)


def sharded(group: Callable[[Iterable[Any]], dict[str, list[Any]]]) -> tuple[Part, tuple[str, Part], tuple[str, Part]]:
    """Floor, Local's difference (empty Queries) and the overhead (read beyond returned) of a sharded read."""

    def parts(found: Any, basis: Paged | None) -> tuple[Cost, Cost, int]:
        return per_partition(group(found), basis.read if basis else None)

    return (
        lambda found, basis: parts(found, basis)[0],
        (bench.LOCAL_EMPTY_QUERY, lambda found, basis: Cost(-0.5 * parts(found, basis)[2])),
        (SHARD_READS, lambda found, basis: parts(found, basis)[1]),
    )


def paged(found: Any, basis: Paged) -> tuple[Cost, Cost]:
    """A one-partition page: its floor (one Query of what it shows) and what its requests read beyond."""
    items = found.items if hasattr(found, "items") else found
    floor = one_query(items)
    (read,) = basis.read.values()
    actual = bench.total(one_query(chunk) for chunk in read) + Cost(0.5 * basis.empty_requests, 0, basis.empty_requests)
    return floor, Cost(actual.rcu - floor.rcu, 0, (actual.requests or 0) - 1)


def page_row(why: str, extra: str) -> Row:
    return Row(
        why,
        lambda found, basis: paged(found, basis)[0],
        (bench.LOCAL_EMPTY_QUERY, lambda _, basis: Cost(-0.5 * basis.empty_requests)),
        (extra, lambda found, basis: paged(found, basis)[1]),
    )


def stream_extra(found: Any, basis: Any) -> Cost:
    return Cost(0, 0, 1) if len(found) < basis else Cost()


SHARD_READS = "each Query reads what its partition holds up to its Limit, more than it contributes to the merge"
ISSUE_PAGE = (
    "each request reads size + 1 issues (Limit counts items read, not kept) until size + 1 are kept: the one more "
    "tells whether an older page exists, and the issues the filter discards are read and charged too"
)
ORDERS, ORDERS_LOCAL, ORDERS_EXTRA = sharded(orders_by_shard)
IN_FLIGHT_FLOOR, IN_FLIGHT_LOCAL, _ = sharded(in_flight_by_partition)


BOARD_EXTRA = "each column's Query reads its size + 1 entries: the one more tells whether a next page exists"


def board_parts(found: dict[str, Any], read: dict[str, list[int]]) -> tuple[Cost, Cost, int]:
    """A board's floor (each column's Query: the entries it shows), what each read beyond, its empty columns.

    ``read``: the sizes of the index entries each column's Query read, in order (its page and the one more).
    """
    floor, beyond, empty = Cost(), Cost(), 0
    for status, page in found.items():
        shown = read[status][: len(page.issues)]
        floor += Cost(bench.query_units(shown), 0, 1)
        beyond += Cost(bench.query_units(read[status]) - bench.query_units(shown))
        empty += not read[status]
    return floor, beyond, empty


def issue_write(why: str, reads: Cost) -> Row:
    """An issue write: ``reads`` (its RCU and requests) + the WCU of what it wrote (basis: ``IssueWrite``)."""

    def local(result: Any, basis: IssueWrite) -> Cost:
        cost = basis.cost(result)
        return Cost(0, cost.local - cost.dynamodb)

    def floor(result: Any, basis: IssueWrite) -> Cost:
        cost = basis.cost(result)
        return reads + Cost(cost.rcu, cost.dynamodb, cost.requests)

    return Row(why, floor, (LOCAL_TRANSACTION, local))


def twice(entries: str, wcu: int) -> tuple[str, Part]:
    """DynamoDB Local's difference for a transaction's index ``entries``: ``wcu`` more WCU per call."""
    return f"{bench.LOCAL_TRANSACT_INDEX} ({entries})", fixed(0, wcu, 0)


@dataclass(frozen=True)
class GotItem:
    """A GetItem's floor from the item it returned, sized by DynamoDB's rules: 0.5 RCU (1 consistent) per 4 KB.

    For a call that returns a value rather than the item (a counter's number, a score), the item's size is
    not in the answer: then the floor is that of an item ≤ 4 KB, a premise ``check_item_sizes`` holds.
    """

    consistent: bool

    def __call__(self, result: Any, _basis: Any) -> Cost:
        item = getattr(result, "item", result)
        size = bench.model_size([item]) if hasattr(item, "serialize") else 0
        return Cost(read_units(size, consistent=self.consistent), 0, 1)


EVENTUAL_GET = Row("GetItem, eventually consistent: 0.5 RCU per started 4 KB of the item", GotItem(False))
CONSISTENT_GET = Row("GetItem, strongly consistent: 1 RCU per started 4 KB of the item", GotItem(True))

ROWS: dict[str, Row] = {
    "projects.create": Row("PutItem SK 0 ≤ 1 KB (1 WCU) + its sparse `projects` index entry (1 WCU)", fixed(0, 2, 1)),
    "projects.get": EVENTUAL_GET,
    "projects.list": Row(
        "Query of the `projects` index (0.5 RCU) + BatchGetItem 0.5 RCU per project",
        lambda found, _: Cost(0.5 + 0.5 * len(found), 0, 2),
    ),
    "projects.refresh_counts": Row(
        "Query of the whole collection (0.5 RCU per 4 KB of the issues) + UpdateItem SK 0 (1 WCU)",
        lambda _, issues: one_query(issues) + Cost(0, 1, 1),
    ),
    "projects.enumerate": Row("Scan of the sparse KEYS_ONLY index: one page ≤ 4 KB", fixed(0.5, 0, 1)),
    "issues.create": issue_write(
        "consistent Query Limit 1 of the top item ≤ 4 KB (1 RCU) + the issue (1 WCU per started KB) and its 3–4 "
        "list-index entries (1 WCU each); with labels one TransactWriteItems: 2 WCU per KB for the issue and for "
        "each of its `labels` entries (a label new to the team: its registry item first, 1 WCU)",
        Cost(1, 0, 2),
    ),
    "issues.create (idempotency key)": issue_write(
        "the same, with the idempotency record in the transaction (2 WCU per KB) and its `by_tenant` entry (1 WCU)",
        Cost(1, 0, 2),
    ),
    "issues.get (eventual)": EVENTUAL_GET,
    "issues.get (consistent)": CONSISTENT_GET,
    "issues.update": issue_write(
        "conditional UpdateItem: the issue (1 WCU per KB of the larger image) + each list-index entry rewritten "
        "(1 WCU) or moved by the new status or update time (a delete and a put: 2 WCU); then each `labels` entry "
        "that changes (its row copy: every edit) put or deleted on its own, 1 WCU — no transaction, no word entry "
        "(a status change of an issue with 2 labels: 1 + 8 + 4 = 13 WCU); refused: + a consistent GetItem (1 RCU), "
        "which finds the call's token `wf` when the refusal was botocore's resend of its own write (its success)",
        Cost(0, 0, 1),
    ),
    "issues.tombstone": issue_write(
        "UpdateItem that drops the list keys: the issue + each list-index entry deleted (1 WCU); then its `labels` "
        "entries deleted, 1 WCU each",
        Cost(0, 0, 1),
    ),
    "issues.page": page_row("one Query, 0.5 RCU per started 4 KB of the issues shown", ISSUE_PAGE),
    "issues.page (status filter)": page_row("one Query, 0.5 RCU per started 4 KB of the issues shown", ISSUE_PAGE),
    "issues.numbers": Row(
        "consistent Query: 1 RCU per 4 KB of the whole issues (a projection does not lower the charge)",
        lambda _, issues: Cost(read_units(bench.model_size(issues), consistent=True), 0, 1),
    ),
    "orders.place (atomic)": Row(
        "UpdateItem ADD of the counter (1 WCU) + PutItem ≤ 1 KB (1 WCU) + by_time and by_number entries (2 WCU)",
        fixed(0, 4, 2),
    ),
    "orders.place (gapless)": Row(
        "consistent GetItem of the counter (1 RCU) + TransactWriteItems: 2 WCU × (counter, order) + by_time and "
        "by_number entries (1 WCU each)",
        fixed(1, 6, 2),
        twice("by_time and by_number", 2),
    ),
    "orders.place (atomic, idempotency key)": Row(
        "UpdateItem ADD of the counter (1 WCU) + TransactWriteItems: 2 WCU × (order, idempotency record) + by_time, "
        "by_number and the record's by_tenant entries (1 WCU each) — the record costs +4 WCU",
        fixed(0, 8, 2),
        twice("by_time, by_number and by_tenant", 3),
    ),
    "orders.place (gapless, idempotency key)": Row(
        "consistent GetItem of the counter (1 RCU) + TransactWriteItems: 2 WCU × (counter, order, idempotency "
        "record) + by_time, by_number and the record's by_tenant entries (1 WCU each) — the record costs +3 WCU",
        fixed(1, 9, 2),
        twice("by_time, by_number and by_tenant", 3),
    ),
    "orders.get": EVENTUAL_GET,
    "orders.find": Row("Query by_number Limit 1 (0.5 RCU) + GetItem (0.5 RCU)", fixed(1, 0, 2)),
    "orders.transition": Row(
        "conditional UpdateItem: 1 WCU per started KB of the order as written + as much for its by_time entry (ALL)",
        lambda order, _: Cost(0, 2 * bench.write_units(bench.model_size([order])), 1),
    ),
    "orders.customer_page": page_row(
        "one Query, 0.5 RCU per started 4 KB of the orders shown",
        "the Query reads size + 2 orders (the cursor's own order again, and one to tell a next page)",
    ),
    "orders.range": Row(
        f"one Query per time shard ({ORDER_SHARDS}), each 0.5 RCU per started 4 KB of what it returns",
        ORDERS,
        ORDERS_LOCAL,
        ORDERS_EXTRA,
    ),
    "orders.latest": Row(
        f"one Query per time shard ({ORDER_SHARDS}), Limit K, each ≥ 0.5 RCU", ORDERS, ORDERS_LOCAL, ORDERS_EXTRA
    ),
    "orders.oldest": Row(
        f"one Query per time shard ({ORDER_SHARDS}), Limit K, each ≥ 0.5 RCU", ORDERS, ORDERS_LOCAL, ORDERS_EXTRA
    ),
    "attachments.transition": Row(
        "one conditional PutItem/UpdateItem ≤ 1 KB (1 WCU) + the in_flight entry put or deleted (1 WCU)",
        fixed(0, 2, 1),
    ),
    "attachments.attach": Row("PutItem Attaching (2 WCU) + UpdateItem Attached (2 WCU)", fixed(0, 4, 2)),
    "attachments.detach": Row("UpdateItem Detaching (2 WCU) + UpdateItem Detached (2 WCU)", fixed(0, 4, 2)),
    "attachments.get": EVENTUAL_GET,
    "attachments.list": Row(
        "one Query, 0.5 RCU per started 4 KB of the attachments shown", lambda found, _: one_query(found)
    ),
    "attachments.in_flight": Row(
        f"one Query of the sparse index per state × shard ({IN_FLIGHT_QUERIES}), each ≥ 0.5 RCU",
        IN_FLIGHT_FLOOR,
        IN_FLIGHT_LOCAL,
    ),
    "attachments.reconcile": Row(
        f"the in_flight Queries ({IN_FLIGHT_QUERIES} × ≥ 0.5 RCU); per stuck Attaching claim (3 WCU) + fail (2 WCU), "
        "per Detaching detach complete (2 WCU)",
        lambda report, found: IN_FLIGHT_FLOOR(found, None)
        + Cost(0, 5 * report.rolled_back + 2 * report.detached, 2 * report.rolled_back + report.detached),
        (bench.LOCAL_EMPTY_QUERY, lambda _, found: IN_FLIGHT_LOCAL[1](found, None)),
    ),
    "leaderboard.award (first of a member)": Row(
        "TransactWriteItems: 2 WCU × (issue checked, award put, score updated) + the new `top` entry (1 WCU)",
        fixed(0, 7, 1),
        twice("the new `top` entry", 1),
    ),
    "leaderboard.award (member scored)": Row(
        "TransactWriteItems: 2 WCU × 3 items + the `top` entry moved: delete + put (2 WCU)",
        fixed(0, 8, 1),
        twice("the `top` entry moved", 2),
    ),
    "leaderboard.award_get": CONSISTENT_GET,
    "leaderboard.revoke": Row(
        "consistent GetItem of the award (1 RCU) + TransactWriteItems: 2 WCU × 3 items + the `top` entry moved (2 WCU)",
        fixed(1, 8, 2),
        twice("the `top` entry moved", 2),
    ),
    "leaderboard.sync": Row("already awarded: the consistent GetItem of the award only", fixed(1, 0, 1)),
    "leaderboard.add": Row("UpdateItem ADD ≤ 1 KB (1 WCU) + a new `top` entry (1 WCU)", fixed(0, 2, 1)),
    "leaderboard.score": EVENTUAL_GET,
    "leaderboard.top": Row(
        f"one Query per shard ({BOARD_SHARDS}), Limit k + 1 of small KEYS_ONLY entries, each 0.5 RCU",
        fixed(0.5 * BOARD_SHARDS, 0, BOARD_SHARDS),
    ),
    "leaderboard.rank": Row(
        f"one COUNT Query per shard ({BOARD_SHARDS}), each ≤ 4 KB of entries counted: 0.5 RCU",
        fixed(0.5 * BOARD_SHARDS, 0, BOARD_SHARDS),
    ),
    "events.put": Row(
        "PutItem: 1 WCU per started KB of the event as stored + as much for its by_day entry (ALL)",
        lambda event, _: Cost(0, 2 * bench.write_units(event_bytes([event])), 1),
    ),
    "events.put (description diff)": Row(
        "PutItem of a description edit's event with its word diff (≤ 2 KB, tracker.text_diff): 1 WCU per started KB "
        "as stored + as much for its by_day entry (ALL); this one < 1 KB: 1 + 1 WCU; the cap adds ≤ 2 + 2 WCU",
        lambda event, _: Cost(0, 2 * bench.write_units(event_bytes([event])), 1),
    ),
    "events.stream": Row(
        "Query of the current month's table, 0.5 RCU per started 4 KB of the events returned",
        lambda found, _: Cost(read_units(event_bytes(found)), 0, 1),
        extra=(
            "fewer than `limit` events this month, so the previous month's table is asked too: it does not exist, "
            "one more request answered with an error and no capacity",
            stream_extra,
        ),
    ),
    "events.by_day": Row(
        f"one Query of by_day per shard ({EVENT_SHARDS}), each 0.5 RCU per started 4 KB of its events, ≥ 0.5",
        lambda found, _: bench.total(Cost(read_units(event_bytes(day)), 0, 1) for day in events_by_shard(found)),
        (bench.LOCAL_EMPTY_QUERY, lambda found, _: Cost(-0.5 * sum(1 for day in events_by_shard(found) if not day))),
    ),
    "counters.next": Row("UpdateItem ADD ≤ 1 KB", fixed(0, 1, 1)),
    "counters.value": CONSISTENT_GET,
    "jobs.fence": Row("UpdateItem ≤ 1 KB (ADD token / conditional SET)", fixed(0, 1, 1)),
    "jobs.checkpoint": Row("conditional UpdateItem ≤ 1 KB", fixed(0, 1, 1)),
    "jobs.state": CONSISTENT_GET,
    "labels.prefix (autocomplete)": Row(
        "Query of the team's label registry, s BETWEEN prefix AND prefix+U+10FFFF, Limit 15 of ≈ 100 B items: 0.5 RCU "
        "(autocomplete's labels; its people are one SQL query of Django's memberships: no DynamoDB, no row)",
        fixed(0.5, 0, 1),
    ),
    "labels.catalogue": Row(
        "Query of the team's label registry (≈ 100 B a label), eventually consistent, < 4 KB: 0.5 RCU", fixed(0.5, 0, 1)
    ),
    "labels.save": Row("UpdateItem of a registry item ≤ 1 KB, conditioned on its version: 1 WCU", fixed(0, 1, 1)),
    "issues.change (label rename, 2 labels)": Row(
        "the labels page's move of one issue (bug → defect, ui kept; no assignee), from its label entry's copy: "
        "UpdateItem of the issue with its list-index entries (6 WCU) + the new label's entry put, the other one "
        "rewritten, the old one deleted (1 WCU each); tracker.services.labels adds the history event (2 WCU)",
        fixed(0, 9, 4),
    ),
    "issues.get (palette: a key)": Row(
        "GetItem of the issue a key (WEB-12) names: 0.5 RCU per started 4 KB", GotItem(False)
    ),
    "issues.get_many (palette: 5 rows)": Row(
        "BatchGetItem of the ≤ 5 issues the search engine found: 0.5 RCU an issue (≤ 4 KB), one request",
        lambda found, _basis: Cost(0.5 * len(found), 0, 1),
    ),
    "board.columns": Row(
        "one Query of `project_status_updated` per status (4), each 0.5 RCU per started 4 KB of the entries it shows",
        lambda found, read: board_parts(found, read)[0],
        (bench.LOCAL_EMPTY_QUERY, lambda found, read: Cost(-0.5 * board_parts(found, read)[2])),
        (BOARD_EXTRA, lambda found, read: board_parts(found, read)[1]),
    ),
}


SMALL_ITEM = 1024  # bytes: what the Fixed floors take every item (and index entry) they touch to be, at most
FIXED_ROWS = [name for name, row in ROWS.items() if isinstance(row.floor, Fixed | GotItem)]


def check_item_sizes(prefix: str) -> dict[str, int]:
    """The largest item of each of the run's tables, by DynamoDB's sizes, read back unmetered after the workload.

    The rows whose floor is a constant (``Fixed``: GetItems, counter and job updates, orders, attachments,
    awards, events) are worked out for items ≤ 1 KB (one write unit; a read ≤ 4 KB, one read unit): the run
    fails when any table holds a larger item, naming those rows, instead of judging them by a wrong floor.
    An index entry is never larger than its item (a projection of it and its keys).
    """

    def largest() -> dict[str, int]:
        client = connection.client()
        sizes: dict[str, int] = {}
        for name in bench.tables_named(prefix):
            request: dict[str, Any] = {"TableName": name}
            biggest = 0
            while True:
                page = client.scan(**request)
                biggest = max([biggest, *(bench.item_size(item) for item in page["Items"])])
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            sizes[name.removeprefix(prefix)] = biggest
        return sizes

    sizes = bench.unmetered(largest)
    over = {table: size for table, size in sizes.items() if size > SMALL_ITEM}
    bench.check(
        not over,
        f"items over {SMALL_ITEM} B in {over}: the constant floors of {', '.join(FIXED_ROWS)} take every item for "
        f"≤ {SMALL_ITEM} B",
    )
    return sizes


def kept_pages(items: Sequence[Any], keep: Callable[[Any], bool], page: int, want: int) -> Paged:
    """Requests of ``page`` items read in order until ``want`` are kept (or a short page ends the partition)."""
    chunks: list[list[Any]] = []
    kept = empty = 0
    while True:
        chunk = list(items[sum(map(len, chunks)) : sum(map(len, chunks)) + page])
        if chunk:
            chunks.append(chunk)
        empty += not chunk
        kept += sum(1 for item in chunk if keep(item))
        if kept >= want or len(chunk) < page:
            return Paged({"": chunks}, empty)


def counted(rows: Iterable[str]) -> Counter[str]:
    return Counter(row.split(" ", 1)[0] for row in rows)
