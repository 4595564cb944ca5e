"""The workload and rows of an issue history's "Remove this change" (``bench/patterns.py``).

A description edit's ``issue.edited`` event keeps its word diff (``tracker.text_diff.stored_diff``, capped at
``DIFF_MAX_BYTES``); its editor or an owner may take it out of the history
(``tracker.services.history_removal.description_diff_forget``): the event is read by its key (``events.get``, one
consistent GetItem: ``tracker.selectors.activity.description_edit``, and a description edit's fan-out) and
redacted in place (``events.redact``: UpdateItem of its ``data``, the diff gone). Measured here at the cap, where
the event is largest: the figures are worked out from the event's size as stored before and after, never read
back from the measurement. Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when
this module is imported. Run after ``run_events`` (its day count) on an issue stream of its own.
"""

from __future__ import annotations

from typing import Any

from ddbmodels import events
from devtools import bench
from devtools.bench import Cost, read_units
from devtools.bench.floors import ALL
from pattern_rows.rows import ROWS, Row
from pattern_rows.workload import PROJECT, TENANT, Workload

STREAM = f"{TENANT}#{PROJECT}#900"  # an issue of its own: the other streams' event counts stay as run_events left
DIFF_MAX_BYTES = 2_000  # tracker.text_diff.DIFF_MAX_BYTES (bench imports no Django app): the diff's cap
BY_DAY_KEYS = ("d", "t")  # the by_day index (ALL): an update of data rewrites its entry, the larger of the two


def stored_size(diff: list[str]) -> int:
    """A list of strings as DynamoDB sizes it (``text_diff.stored_size``): 3 bytes, each string's bytes + 1."""
    return 3 + sum(len(op.encode()) + 1 for op in diff)


def capped_diff() -> list[str]:
    """A description edit's diff at its cap: a pasted paragraph taken out again (removed words), 8 words around."""
    diff = ["=Deploy fails on the second run. Log in ", "-", "+", "=and run the job again. It times out after ", "~"]
    room = DIFF_MAX_BYTES - stored_size(diff)
    words = "with the deploy key ghp_bench0secret0token and the staging password from the vault, then "
    diff[1] += (words * (room // len(words) + 1))[: room // 2]
    diff[2] += (words.upper() * (room // len(words) + 1))[: room - room // 2]
    return diff


def redacted(event: events.Event, by: str) -> events.Event:
    """The event as ``description_diff_forget`` leaves it: its data without ``diff``, naming who removed it."""
    data = {key: value for key, value in event.data.items() if key != "diff"}
    return events.Event(event.stream, event.t, event.kind, event.actor, event.tenant, {**data, "diff_removed_by": by})


def stored(event: events.Event) -> dict[str, Any]:
    """The event's item as ``event_put`` wrote it (its by_day entry is the same item: ALL)."""
    shard = events.shard_of(event.stream, events.DEFAULT_SHARDS)
    return {
        "s": {"S": event.stream},
        "t": {"S": event.t},
        "d": {"S": events.day_key(event.tenant, event.at.date(), shard)},
        "kind": {"S": event.kind},
        "actor": {"S": event.actor},
        "tenant": {"S": event.tenant},
        "data": events.to_attribute(event.data),
    }


def redact_cost(_done: bool, basis: tuple[events.Event, events.Event]) -> Cost:
    """The item rewritten, the larger of before and after per started KB, and its by_day entry alike."""
    before, after = (stored(event) for event in basis)
    item = bench.update_units(bench.item_size(before), bench.item_size(after))
    entry = bench.index_write_units(before, after, ("s", "t"), BY_DAY_KEYS, ALL)
    return Cost(0, item + entry, 1)


def later_read(_found: list[events.Event], sizes: list[int]) -> Cost:
    """One consistent Query page per events table from the removed edit's period on (the later edits it reaches):
    1 RCU per started 4 KB of the events each reads, at least 1 a table (an empty one too); ListTables first (free,
    one request)."""
    return Cost(sum(read_units(size, consistent=True) for size in sizes), 0, len(sizes) + 1)


def empty_tables(_found: list[events.Event], sizes: list[int]) -> Cost:
    return Cost(-sum(1 for size in sizes if size == 0))


HISTORY_ROWS: dict[str, Row] = {
    "events.get": Row(
        "consistent GetItem of one event by its key in its period's table (a description edit's, its diff at the "
        "2 KB cap: ≈ 2.3 KB): 1 RCU per started 4 KB",
        lambda _found, size: Cost(read_units(size, consistent=True), 0, 1),
    ),
    "events.redact (description diff, 2 KB)": Row(
        "UpdateItem SET data of a description edit's event whose diff is at its 2 KB cap, the diff taken out: the "
        "larger of the item before and after, 1 WCU per started KB (≈ 2.3 KB: 3 WCU), and as much for its by_day "
        "entry (ALL: 3 WCU)",
        redact_cost,
    ),
    "events.stream_after (the later edits a removal reaches)": Row(
        "ListTables (free) + consistent Query of the issue's stream, t > the removed edit's key, Limit 50, one page "
        "per events table from its period on: 1 RCU per started 4 KB of the events read (two later edits at the "
        "2 KB cap: ≈ 4.6 KB, 2 RCU); their notifications: one UpdateItem (1 WCU) per person and edit, in the request "
        "up to 200, else a job",
        later_read,
        (bench.LOCAL_EMPTY_QUERY, empty_tables),
    ),
}
ROWS.update(HISTORY_ROWS)


def run_history(run: Workload) -> None:
    """A description edit with its diff at the cap put (unmetered), read by its key, its diff removed."""
    diff = capped_diff()
    size = stored_size(diff)
    bench.check(DIFF_MAX_BYTES - 10 <= size <= DIFF_MAX_BYTES, f"the diff is {size} B, not at its cap")
    data = {"changed": {}, "description": True, "diff": diff}
    put = bench.unmetered(
        lambda: events.event_put(stream=STREAM, kind="issue.edited", actor="bench", tenant=TENANT, data=data)
    )
    event_size = bench.item_size(stored(put))
    bench.check(event_size > 2 * 1024, f"the event is {event_size} B: a capped diff makes it over 2 KB")
    found = run("events.get", events.event_get, stream=STREAM, t=put.t, basis=event_size)
    bench.check(found is not None and found.data == data, "the event read by its key is not the one put")
    after = redacted(put, "bench")
    done = run(
        "events.redact (description diff, 2 KB)",
        events.event_redact,
        table=put.table,
        stream=STREAM,
        t=put.t,
        data=after.data,
        basis=(put, after),
    )
    bench.check(done, "the event was not redacted")
    left = bench.unmetered(lambda: events.event_get(stream=STREAM, t=put.t))
    bench.check(left is not None and "diff" not in left.data, "the diff is still in the event")
    run_later_edits(run, put)


def run_later_edits(run: Workload, removed: events.Event) -> None:
    """Two later description edits at the cap (unmetered), read as a removal reads them: one page a table."""
    data = {"changed": {}, "description": True, "diff": capped_diff()}
    later = [
        bench.unmetered(
            lambda: events.event_put(stream=STREAM, kind="issue.edited", actor="bench", tenant=TENANT, data=data)
        )
        for _ in range(2)
    ]
    tables = [
        table
        for table in bench.unmetered(events.list_event_tables)
        if table.kind == events.DEFAULT_PERIOD and table.end > removed.at
    ]
    sizes = [sum(bench.item_size(stored(e)) for e in later if e.table == table.name) for table in tables]
    found = run(
        "events.stream_after (the later edits a removal reaches)",
        events.stream_events_after,
        stream=STREAM,
        after=removed.t,
        limit=50,
        basis=sizes,
    )
    bench.check([e.t for e in found] == [e.t for e in later], f"the later edits read are {found}")
    for event in later:  # their diffs out again (unmetered), so every item left is ≤ 1 KB (``check_item_sizes``)
        _redact_unmetered(event)


def _redact_unmetered(event: events.Event) -> None:
    data = redacted(event, "bench").data
    bench.unmetered(lambda: events.event_redact(table=event.table, stream=STREAM, t=event.t, data=data))
