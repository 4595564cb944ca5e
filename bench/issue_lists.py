"""Every issue list the pages offer, measured on projects of 1,000 to 100,000 issues: one Query, flat.

For each size in ``--sizes`` (default 1000,10000,100000) a team of its own (``bench-<size>``,
the size zero-padded so every key is as long at every size) gets a project WEB of that many
issues and a project API of a tenth as many, bulk-loaded with ``issues.issues_put_many``
(BatchWriteItem of each issue and its ``labels`` entries; ``--workers`` threads, 1 by default: DynamoDB
Local under-reports concurrent BatchWriteItems). The load's floor: 1 WCU per started KB of each issue,
list-index entry and label entry, sized from the items read back unmetered; the label entries counted
from what was asked (one per label of each issue), not from the code's report. The shape is a team's:
about 1 % open (a dozen at 1,000), 2 % in progress, 3 % resolved, the rest closed, scattered
over the project's history; assignees from 8 people (Zipf: the first has about a third), 15 %
unassigned; labels from 6 (``bug`` on about 5 %), each label's entries under its own key; titles
from a vocabulary ("Checkout fails on Safari"). Search is the search engine's, not a DynamoDB list:
``bench/search.py`` measures it.

Then each list is called ``--repeat`` times (one unmetered call first): the open list by number
and by last update, the closed list's first page, the team's open issues, one person's ("My
issues"), label ``bug`` open in the project and in the team, a milestone's open issues — and the old
``issues.issue_page(status="open")``, a Query of the whole collection with a FilterExpression, for
comparison ("before": it reads the issues it discards).
Each call is checked against the issues loaded (exactly the right rows, in order).

DynamoDB's floor of a list: its one request, 0.5 RCU per started 4 KB of the entries the Query
must read (``size + 1`` at most: the issues loaded that it shows and the one after), sized by
DynamoDB's rules from the items read back unmetered (their index entries as the table describes
the index's keys and projection, or the label's entries) — never from the answer it judges.
The old list's floor is the same for the rows it shows; what it reads
beyond them is computed from the collection as loaded (newest first, ``Limit 26`` a request,
until 26 open ones are found) and named. **Flat**: at every size the same requests (one),
each at its floor, never more than one full page of RCU (a bound that does not depend on
the project's size), and RCU at the largest size ÷ RCU at the smallest ≤ 1.1 — unless the
smaller project did not fill the page (12 open issues at 1,000 show 12 rows, 0.5 RCU; 26 at
100,000, 1 RCU), or the same entries, at most 10 % more bytes, crossed a 4 KB step (26 entries
are ≈ 4 KB: 4,050 B is 0.5 RCU, 4,150 B is 1), which is printed.

Printed on stdout: the load, a table per size, the comparison across sizes, the notes on the
floors, where the chart went (``bench/out/issue_lists.png``: RCU per list against the project's
size), and last exactly one line of JSON. Exit 0 when every list is right, at its floor and flat
(the old list explained), 1 when not, 2 when refused (no DYNAMODB_ENDPOINT_URL).

    python -m devtools.services run -- .venv/bin/python bench/issue_lists.py
    python -m devtools.services run -- .venv/bin/python bench/issue_lists.py --sizes 1000,10000 --repeat 50
"""

from __future__ import annotations

import functools
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from issue_list_parts.chart import chart
from issue_list_parts.shape import (
    API_SHARE,
    MILESTONE,
    PEOPLE,
    RARE_TITLES,
    Spec,
    Team,
    issue_of,
    project_specs,
)

from ddbmodels import issues
from ddbmodels import labels as ddb_labels
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.threads import map_in_threads
from ddbmodels.issues import CollectionItem, collection_key
from ddbmodels.labels import LabelEntry
from devtools import bench

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "bench" / "out" / "issue_lists.png"
PAGE = 25  # the pages' size: a list reads PAGE + 1 entries
CHUNK = 250  # issues per load task
OLD_LIST = "old: issue_page(status=open)"
FLAT = 1.1


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("issue_lists", __doc__)
    bench.levels(parser, "--sizes", [1000, 10000, 100000], "issues in the project WEB, one team per size")
    bench.count(parser, "--repeat", 20, "measured calls of each list per size")
    # One thread by default: DynamoDB Local under-reports concurrent BatchWriteItems (8 threads: 1,757-1,830 WCU
    # for a load of 2,043 by the items' sizes, run to run; 1 thread: 2,043), which fails the load's floor.
    bench.count(parser, "--workers", 1, "threads loading issues (Local's figures are exact with 1)")
    bench.count(parser, "--seed", 12, "random seed of the shape")
    # --quick: two sizes a tenfold apart (the smaller does not fill a page of open issues), 3 calls each
    return bench.quick_sizes(parser, parser.parse_args(argv), sizes=[300, 2200], repeat=2)


# ---------------------------------------------------------------------------- what is stored (read back unmetered)

Raw = dict[str, Any]  # an item as DynamoDB stores it (the low-level client's answer)
TABLE_KEYS = ("pk", "n")
Index = tuple[tuple[str, ...], str | list[str]]  # an index's key names and its projection


@functools.cache
def list_indexes() -> dict[str, Index]:
    """The issues table's indexes as DynamoDB describes them: keys and projection (INCLUDE: the attributes).

    Asked once, while the table is empty (DynamoDB Local's DescribeTable of 110,000 items timed out)."""
    indexes: dict[str, Index] = {}
    for index in tables.describe(CollectionItem).get("GlobalSecondaryIndexes", []):
        projection = index["Projection"]
        projected = projection.get("NonKeyAttributes", []) if projection["ProjectionType"] == "INCLUDE" else None
        keys = tuple(k["AttributeName"] for k in index["KeySchema"])
        indexes[index["IndexName"]] = (keys, projected if projected is not None else projection["ProjectionType"])
    return indexes


def index_sizes(item: Raw, index: Index) -> int:
    """The size of ``item``'s entry in one index (0: not in it)."""
    keys, projected = index
    entry = bench.index_entry(item, TABLE_KEYS, keys, projected)
    return 0 if entry is None else bench.item_size(entry)


def stored_issues(slug: str, specs: list[Spec]) -> list[Raw]:
    """The issues as stored, read back UNMETERED (BatchGetItem pages no meter sees)."""
    keys = [{"pk": {"S": collection_key(slug, s.project)}, "n": {"N": str(s.number)}} for s in specs]
    return stored(CollectionItem.Meta.table_name, keys)


def stored(table: str, keys: list[Raw]) -> list[Raw]:
    """Items by key, read back unmetered, in the keys' order; each must be there."""
    client = connection.client()

    def read() -> dict[str, Raw]:
        found: dict[str, Raw] = {}
        for i in range(0, len(keys), 100):
            request: dict[str, Any] = {table: {"Keys": keys[i : i + 100], "ConsistentRead": True}}
            while request:
                page = client.batch_get_item(RequestItems=request)
                for item in page["Responses"].get(table, []):
                    found[repr(sorted((k, item[k]) for k in keys[0]))] = item
                request = page.get("UnprocessedKeys") or {}
        return found

    found = bench.unmetered(read)
    items = [found.get(repr(sorted(key.items()))) for key in keys]
    bench.check(all(item is not None for item in items), f"{table}: an item written is not stored")
    return [item for item in items if item is not None]


def label_entries(slug: str, labels: set[str]) -> list[Raw]:
    """Every label entry of the team, read back unmetered (a Query of each label's key, no meter)."""
    client = connection.client()

    def read() -> list[Raw]:
        items: list[Raw] = []
        for label in sorted(labels):
            request: dict[str, Any] = {
                "TableName": LabelEntry.Meta.table_name,
                "KeyConditionExpression": "lk = :k",
                "ExpressionAttributeValues": {":k": {"S": ddb_labels.label_key(slug, label)}},
            }
            while True:
                page = client.query(**request)
                items += page.get("Items", [])
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return items

    return bench.unmetered(read)


def load(run: bench.Run, size: int) -> Team:
    """The team of ``size``: two projects, their issues bulk-loaded on threads; the load's figures."""
    rng = random.Random(run.args.seed * 1_000_003 + size)
    slug = f"bench-{size:07d}"
    team = Team(
        size=size,
        slug=slug,
        specs={
            "WEB": project_specs(rng, "WEB", size, 0, RARE_TITLES),
            "API": project_specs(rng, "API", max(100, size // API_SHARE), 1, 0),
        },
    )
    for key in team.specs:
        issues.project_create(tenant=slug, key=key, name=f"{key} ({size:,})", created_by="bench")
    # the team's labels registered once, before the load (as the first issue of each label does): outside the meter
    ddb_labels.registry_ensure(
        slug, {label for specs in team.specs.values() for spec in specs for label in spec.labels}
    )
    chunks = [specs[i : i + CHUNK] for specs in team.specs.values() for i in range(0, len(specs), CHUNK)]
    total = sum(len(specs) for specs in team.specs.values())
    bar = bench.progress_bar(total=total, desc=f"load {size:,}", unit="issue", leave=False)
    lock = threading.Lock()

    def put(chunk: list[Spec]) -> int:
        written = issues.issues_put_many([issue_of(slug, spec) for spec in chunk])
        with lock:
            bar.update(len(chunk))
        return written

    with bar, capacity.measure() as meter:
        began = time.perf_counter()
        map_in_threads(put, chunks, workers=run.args.workers)
        seconds = time.perf_counter() - began
    # The floor from what was asked (the specs: every issue, one entry per label) and the items read back
    # unmetered: 1 WCU per started KB of each issue, of each list-index entry and of each label entry.
    everyone = [spec for specs in team.specs.values() for spec in specs]
    labels = {label for spec in everyone for label in spec.labels}
    indexes = list_indexes().values()
    floor_wcu = 0
    for spec, item in zip(everyone, stored_issues(slug, everyone), strict=True):
        if spec.project == "WEB":
            team.sizes[spec.number] = bench.item_size(item)
        floor_wcu += bench.write_units(bench.item_size(item))
        floor_wcu += sum(bench.write_units(entry) for index in indexes if (entry := index_sizes(item, index)))
    entries = label_entries(slug, labels)
    asked = sum(len(spec.labels) for spec in everyone)
    bench.check(len(entries) == asked, f"{len(entries)} label entries stored, {asked} asked")
    floor_wcu += sum(bench.write_units(bench.item_size(entry)) for entry in entries)
    verdict = run.judge(f"load {size:,}", bench.Cost(meter.rcu, meter.wcu), bench.Cost(0, floor_wcu))
    run.figures["loads"].append(
        {
            "size": size,
            "team": slug,
            "issues": total,
            "label_entries": asked,
            "items": total + asked,
            "seconds": round(seconds, 1),
            "issues_per_s": round(total / seconds),
            "requests": meter.requests,
            **verdict.cells(),
        }
    )
    entries_count = asked
    print(
        f"loaded {total:,} issues of {slug} (WEB {size:,}, API {len(team.specs['API']):,}) and {entries_count:,} label "
        f"entries in {seconds:.1f} s ({total / seconds:,.0f} issues/s, {meter.wcu:,.0f} WCU)",
        flush=True,
    )
    return team


# ---------------------------------------------------------------------------- the lists


@dataclass(frozen=True)
class Listing:
    """One list: how the product calls it, and what it must show (refs in order)."""

    name: str
    call: Callable[[], list[str]]
    reads: list[Spec]  # what its Query reads, in order: the page shown and the one after (size + 1 at most)
    index: str | None  # the issues table's index it reads; None: the label's entries (the labels table)
    limit: int = PAGE + 1  # entries its Query reads at most (size + 1): the page bound

    @property
    def expected(self) -> list[str]:
        return [spec.ref for spec in self.reads[:PAGE]]


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


def label_sort_key(spec: Spec) -> tuple[str, int]:
    return spec.project, spec.number


def listings(team: Team) -> list[Listing]:
    web, everyone = team.specs["WEB"], [s for specs in team.specs.values() for s in specs]
    slug = team.slug

    def top(specs: list[Spec], key: Callable[[Spec], Any]) -> list[Spec]:
        return sorted(specs, key=key, reverse=True)[: PAGE + 1]

    def by_number(s: Spec) -> int:
        return s.number

    def by_update(s: Spec) -> datetime:
        return s.updated

    open_web = [s for s in web if s.status == "open"]
    open_all = [s for s in everyone if s.status == "open"]
    me = PEOPLE[0]
    bug_open = [s for s in everyone if s.status == "open" and "bug" in s.labels]
    return [
        Listing(
            "open, by number",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="open")),
            top(open_web, by_number),
            "project_status_number",
        ),
        Listing(
            "open, by last update",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="open", sort="updated")),
            top(open_web, by_update),
            "project_status_updated",
        ),
        Listing(
            "closed, first page",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="closed")),
            top([s for s in web if s.status == "closed"], by_number),
            "project_status_number",
        ),
        Listing(
            "team: open",
            lambda: refs(issues.status_list(tenant=slug, status="open")),
            top(open_all, by_update),
            "team_status",
        ),
        Listing(
            f"my issues ({me}): open",
            lambda: refs(issues.status_list(tenant=slug, assignee=me, status="open")),
            top([s for s in open_all if s.assignee == me], by_update),
            "assignee_status",
        ),
        Listing(
            "label bug: open, project",
            lambda: refs(issues.label_list(tenant=slug, label="bug", status="open", project_key="WEB")),
            top([s for s in bug_open if s.project == "WEB"], by_number),
            None,
        ),
        Listing(
            "label bug: open, team",
            lambda: refs(issues.label_list(tenant=slug, label="bug", status="open")),
            top(bug_open, label_sort_key),
            None,
        ),
        Listing(
            "milestone: open",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="open", milestone=MILESTONE)),
            top([s for s in open_web if s.milestone == MILESTONE], by_number),
            "milestone_status",
        ),
        Listing(
            OLD_LIST,
            lambda: [i.reference for i in issues.issue_page(tenant=slug, project_key="WEB", status="open").items],
            top(open_web, by_number),
            None,
        ),
    ]


def entry_sizes(team: Team, listing: Listing) -> list[int]:
    """The sizes of the entries ``listing``'s Query reads, from what was asked (its specs) and the items read back
    unmetered: the issues' index entries, or the label's entries; the old page's issues as loaded."""
    if listing.name == OLD_LIST:
        return [team.sizes[s.number] for s in listing.reads]
    if listing.index is None:
        keys = [
            {
                "lk": {"S": ddb_labels.label_key(team.slug, "bug")},
                "s": {"S": ddb_labels.entry_sort(s.status, s.project, s.number)},
            }
            for s in listing.reads
        ]
        return [bench.item_size(item) for item in stored(LabelEntry.Meta.table_name, keys)] if keys else []
    index = list_indexes()[listing.index]
    sizes = [index_sizes(item, index) for item in stored_issues(team.slug, listing.reads)] if listing.reads else []
    bench.check(all(sizes), f"{listing.name}: an issue it lists has no entry in {listing.index}")
    return sizes


# ---------------------------------------------------------------------------- measuring


@dataclass
class Measured:
    meter: capacity.CapacityMeter
    seconds: float
    shown: list[str]


def call(listing: Listing) -> Measured:
    """One call of the list under the bench's own meter."""
    with capacity.measure() as meter:
        began = time.perf_counter()
        shown = listing.call()
        seconds = time.perf_counter() - began
    return Measured(meter, seconds, shown)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def old_list_reads(team: Team) -> tuple[int, int, float, int]:
    """What ``issue_page(status="open")`` reads of WEB as loaded: issues, bytes, RCU (per request), requests.

    Newest first, ``Limit 26`` a request (PynamoDB's page size), until 26 open issues are found or
    the collection ends; every issue read is charged, kept or not.
    """
    web = sorted(team.specs["WEB"], key=lambda s: s.number, reverse=True)
    read = found = requests = total_bytes = 0
    rcu = 0.0
    while read < len(web) and found < PAGE + 1:
        chunk = web[read : read + PAGE + 1]
        chunk_bytes = sum(team.sizes[s.number] for s in chunk)
        requests += 1
        rcu += bench.read_units(chunk_bytes)
        total_bytes += chunk_bytes
        read += len(chunk)
        found += sum(1 for s in chunk if s.status == "open")
    return read, total_bytes, rcu, requests


def measure_list(run: bench.Run, team: Team, listing: Listing) -> dict[str, Any]:
    repeat = run.args.repeat
    first = call(listing)  # unmetered in the figures: DynamoDB Local's JIT and caches warm up
    bench.check(
        first.shown == listing.expected,
        f"{team.slug} {listing.name}: shows {first.shown[:5]}… ({len(first.shown)}), "
        f"expected {listing.expected[:5]}… ({len(listing.expected)})",
    )
    calls = [call(listing) for _ in range(repeat)]
    for each in calls:
        bench.check(each.shown == listing.expected, f"{team.slug} {listing.name}: a repeat showed other rows")
        same = (each.meter.rcu, each.meter.requests) == (calls[0].meter.rcu, calls[0].meter.requests)
        bench.check(same, f"{team.slug} {listing.name}: a repeat cost otherwise than the first")
    total = capacity.CapacityMeter()
    for each in calls:
        total.add(each.meter)
    returned = entry_sizes(team, listing)
    entry = max(returned, default=0)
    extras: list[bench.Difference] = []
    # One request: its entries added up, rounded to 4 KB (at least 0.5 RCU, even when it finds nothing).
    floor = bench.Cost(bench.query_units(returned), 0, 1)
    if listing.name == OLD_LIST:
        # The floor is the page it shows (26 issues, one request); the rest is what the filter discards.
        read, read_bytes, rcu, requests = old_list_reads(team)
        why = (
            f"the FilterExpression reads every issue newest first until 26 are open: {read:,} issues "
            f"({read_bytes:,} B) in {requests} requests of Limit 26, each rounded to 4 KB"
        )
        extra = bench.Cost(rcu, 0, requests) + bench.Cost(-floor.rcu, 0, -1)
        extras.append(bench.Difference(why, extra.times(repeat)))
        entry = max(team.sizes.values())
    empty = listing.name != OLD_LIST and not listing.reads  # Local charges a Query that finds nothing 0
    local = bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5).times(repeat)) if empty else None
    verdict = run.judge(
        f"{team.size:,}: {listing.name}",
        bench.Cost.of(total),
        floor.times(repeat),
        local=local,
        extras=extras,
        per=repeat,
    )
    latencies = [1000 * each.seconds for each in calls]
    return {
        "list": listing.name,
        "rows": len(first.shown),
        "returned": len(returned),
        "bytes": sum(returned),
        "bound_rcu": bench.read_units(listing.limit * entry),
        "p50_ms": round(quantile(latencies, 0.5), 2),
        "p95_ms": round(quantile(latencies, 0.95), 2),
        "old": listing.name == OLD_LIST,
        **verdict.cells(),
    }


def measure(run: bench.Run) -> None:
    run.figures.update(sizes=run.args.sizes, repeat=run.args.repeat, loads=[], lists={})
    for model in (CollectionItem, LabelEntry):
        model.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
    list_indexes.cache_clear()
    list_indexes()  # while the table is empty
    for size in run.args.sizes:
        team = load(run, size)
        rows = [measure_list(run, team, listing) for listing in listings(team)]
        run.figures["lists"][str(size)] = rows
        show_size(size, rows)
    run.figures["flat"] = flatness(run.figures["lists"])


# ---------------------------------------------------------------------------- flatness


def flatness(by_size: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per list across sizes: requests, RCU, p50; the ratio largest ÷ smallest; the verdict."""
    sizes = sorted(by_size, key=int)
    if not sizes:
        return []
    out = []
    for index, first in enumerate(by_size[sizes[0]]):
        row: dict[str, Any] = {"list": first["list"], "old": first["old"]}
        cells = [by_size[size][index] for size in sizes]
        for size, cell in zip(sizes, cells, strict=True):
            row[f"req_{size}"] = float(cell["m_req"])
            row[f"rcu_{size}"] = cell["m_rcu"]
            row[f"p50_{size}"] = cell["p50_ms"]
            row[f"rows_{size}"] = cell["rows"]
        low, high = cells[0], cells[-1]
        ratio = high["m_rcu"] / low["m_rcu"] if low["m_rcu"] else None  # None: nothing to read at the smallest
        row["ratio"] = "-" if ratio is None else f"{ratio:.2f}"
        row["verdict"] = verdict(first["list"], cells, ratio)
        out.append(row)
    return out


def verdict(name: str, cells: list[dict[str, Any]], ratio: float | None) -> str:
    if name == OLD_LIST:
        return "before (grows)" if ratio is None or ratio > FLAT else "before"
    requests = {float(cell["m_req"]) for cell in cells}
    most = 1
    if len(requests) != 1 or max(requests) > most:
        return "NOT FLAT: requests"
    if any(cell["verdict"] not in ("floor", "explained") for cell in cells):
        return "NOT AT FLOOR"
    bound = max(cell["bound_rcu"] for cell in cells)
    if any(cell["m_rcu"] > bound for cell in cells):
        return "NOT FLAT: over a page"
    if ratio is not None and ratio <= FLAT:
        return "flat"
    low, high = cells[0], cells[-1]
    if low["returned"] < high["returned"]:
        return f"flat (page filling: {low['returned']} → {high['returned']} entries)"
    if low["returned"] == high["returned"] and high["bytes"] <= FLAT * low["bytes"]:
        # The same entries, a few bytes larger, crossed a 4 KB step (a page of 26 is ≈ 4 KB).
        return f"flat (4 KB step: {low['bytes']:,} → {high['bytes']:,} B)"
    return "NOT FLAT"


# ---------------------------------------------------------------------------- output

SIZE_COLUMNS = bench.columns(
    "list:s | rows:d | entries=returned:d | bytes:,d | @rcu | @req | page bound RCU=bound_rcu:.1f "
    "| p50 ms=p50_ms:.2f | p95 ms=p95_ms:.2f | @verdict"
)
LOAD_COLUMNS = bench.columns(
    "size:,d | team:s | issues:,d | label entries=label_entries:,d | seconds:.1f | issues/s=issues_per_s:,d "
    "| requests:,d | @wcu | @verdict"
)


def show_size(size: int, rows: list[dict[str, Any]]) -> None:
    print(f"\nProject of {size:,} issues (the team: WEB {size:,} + API {max(100, size // API_SHARE):,})")
    print(bench.table(SIZE_COLUMNS, rows), flush=True)


def comparison_columns(sizes: list[str]) -> list[bench.Column]:
    made: list[bench.Column] = [("list", "list", "s")]
    for size in sizes:
        made += [(f"req {int(size):,}", f"req_{size}", ".0f"), (f"RCU {int(size):,}", f"rcu_{size}", ".2f")]
    made += [(f"p50 ms {int(size):,}", f"p50_{size}", ".2f") for size in sizes]
    ratio_title = f"RCU {int(sizes[-1]):,} ÷ {int(sizes[0]):,}"
    return [*made, (ratio_title, "ratio", ">"), ("verdict", "verdict", "s")]


def show(run: bench.Run) -> None:
    figures = run.figures
    bench.show_table(
        "Loads (BatchWriteItem of issues and label entries, on threads)", LOAD_COLUMNS, figures.get("loads")
    )
    by_size = figures.get("lists") or {}
    flat = figures.get("flat") or []
    if flat and len(by_size) > 1:
        sizes = sorted(by_size, key=int)
        print(f"\nAcross sizes (per call; flat = same requests, at the floor, ≤ one page, ratio ≤ {FLAT})")
        print(bench.table(comparison_columns(sizes), flat))
    if by_size:
        bench.draw(chart, by_size, CHART, figures, str(CHART.relative_to(ROOT)))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = ", ".join(f"{size:,}" for size in args.sizes)
    return bench.run("issue_lists", args, checked, show, headline=f", sizes {sizes}, {{repeat}} calls each", tag="il")


def checked(run: bench.Run) -> None:
    """Measure, then fail the run (after its figures) when a new list is not flat."""
    measure(run)
    wrong = [row["list"] for row in run.figures["flat"] if not row["old"] and not row["verdict"].startswith("flat")]
    bench.check(not wrong, f"not flat: {', '.join(wrong)}")


if __name__ == "__main__":
    sys.exit(main())
