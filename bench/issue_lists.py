"""Every issue list the pages offer, measured on projects of 1,000 to 100,000 issues: one Query, flat.

For each size in ``--sizes`` (default 1000,10000,100000) a team of its own (``bench-<size>``,
the size zero-padded so every key is as long at every size) gets a project WEB of that many
issues and a project API of a tenth as many, bulk-loaded with ``issues.issues_put_many``
(BatchWriteItem of each issue and its ``labels`` entries) on threads. The shape is a team's:
about 1 % open (a dozen at 1,000), 2 % in progress, 3 % resolved, the rest closed, scattered
over the project's history; assignees from 8 people (Zipf: the first has about a third), 15 %
unassigned; labels from 6 (``bug`` on about 5 %), each label's entries under its own key; titles
from a vocabulary ("Checkout fails on Safari"). Search is the search engine's, not a DynamoDB list:
``bench/search.py`` measures it.

Then each list is called ``--repeat`` times (one unmetered call first): the open list by number
and by last update, the closed list's first page, the team's open issues, one person's ("My
issues"), label ``bug`` open in the project and in the team — and the old
``issues.issue_page(status="open")``, a Query of the whole collection with a FilterExpression, for
comparison ("before": it reads the issues it discards).
Each call is checked against the issues loaded (exactly the right rows, in order).

DynamoDB's floor of a list: its one request, 0.5 RCU per started 4 KB of the entries the Query
returned (``size + 1`` at most), sized by DynamoDB's rules from
the items in the answer. The old list's floor is the same for the rows it shows; what it reads
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

import contextvars
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

from botocore import handlers
from issue_list_parts.chart import chart
from issue_list_parts.shape import (
    API_SHARE,
    PEOPLE,
    RARE_TITLES,
    Spec,
    Team,
    indexed,
    issue_of,
    project_specs,
)

from ddbmodels import issues
from ddbmodels import labels as ddb_labels
from ddbmodels.core import capacity, tables
from ddbmodels.core.threads import map_in_threads
from ddbmodels.issues import CollectionItem
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
    bench.count(parser, "--workers", 8, "threads loading issues")
    bench.count(parser, "--seed", 12, "random seed of the shape")
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------- what DynamoDB answered

_answers: contextvars.ContextVar[list[list[dict[str, Any]]] | None] = contextvars.ContextVar(
    "issue_lists_answers", default=None
)


def _capture(*, model: Any, parsed: dict[str, Any], **_: Any) -> None:
    """Keep the items of every Query answer made while a capture is open (the floors are sized from them)."""
    answers = _answers.get()
    if answers is not None and model.name == "Query":
        answers.append(parsed.get("Items", []))


_HOOK = ("after-call.dynamodb", _capture)
if _HOOK not in handlers.BUILTIN_HANDLERS:
    handlers.BUILTIN_HANDLERS.append(_HOOK)  # before any botocore session is made, like the capacity meter


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

    def put(chunk: list[Spec]) -> tuple[int, list[tuple[Spec, int, int]]]:
        made = [issue_of(slug, spec) for spec in chunk]
        written = issues.issues_put_many(made)  # sets each issue's list keys before it is written
        sized = [
            (spec, bench.item_size(item.serialize()), indexed(item)) for spec, item in zip(chunk, made, strict=True)
        ]
        with lock:
            bar.update(len(chunk))
        return written, sized

    with bar, capacity.measure() as meter:
        began = time.perf_counter()
        done = map_in_threads(put, chunks, workers=run.args.workers)
        seconds = time.perf_counter() - began
    written = sum(w for w, _ in done)
    floor_wcu = 0
    for _, sized in done:
        for spec, item_bytes, entries in sized:
            if spec.project == "WEB":
                team.sizes[spec.number] = item_bytes
            floor_wcu += bench.write_units(item_bytes) + entries
    entries = written - total
    floor_wcu += entries  # every label entry is a small item (< 1 KB): 1 WCU
    verdict = run.judge(f"load {size:,}", bench.Cost(meter.rcu, meter.wcu), bench.Cost(0, floor_wcu))
    run.figures["loads"].append(
        {
            "size": size,
            "team": slug,
            "issues": total,
            "label_entries": entries,
            "items": written,
            "seconds": round(seconds, 1),
            "issues_per_s": round(total / seconds),
            "requests": meter.requests,
            **verdict.cells(),
        }
    )
    print(
        f"loaded {total:,} issues of {slug} (WEB {size:,}, API {len(team.specs['API']):,}) and {entries:,} label "
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
    expected: list[str]
    limit: int  # entries its Query reads at most (size + 1): the page bound


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


def label_sort_key(spec: Spec) -> tuple[str, int]:
    return spec.project, spec.number


def listings(team: Team) -> list[Listing]:
    web, everyone = team.specs["WEB"], [s for specs in team.specs.values() for s in specs]
    slug = team.slug

    def top(specs: list[Spec], key: Callable[[Spec], Any]) -> list[str]:
        return [s.ref for s in sorted(specs, key=key, reverse=True)[:PAGE]]

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
            PAGE + 1,
        ),
        Listing(
            "open, by last update",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="open", sort="updated")),
            top(open_web, by_update),
            PAGE + 1,
        ),
        Listing(
            "closed, first page",
            lambda: refs(issues.status_list(tenant=slug, project_key="WEB", status="closed")),
            top([s for s in web if s.status == "closed"], by_number),
            PAGE + 1,
        ),
        Listing(
            "team: open",
            lambda: refs(issues.status_list(tenant=slug, status="open")),
            top(open_all, by_update),
            PAGE + 1,
        ),
        Listing(
            f"my issues ({me}): open",
            lambda: refs(issues.status_list(tenant=slug, assignee=me, status="open")),
            top([s for s in open_all if s.assignee == me], by_update),
            PAGE + 1,
        ),
        Listing(
            "label bug: open, project",
            lambda: refs(issues.label_list(tenant=slug, label="bug", status="open", project_key="WEB")),
            top([s for s in bug_open if s.project == "WEB"], by_number),
            PAGE + 1,
        ),
        Listing(
            "label bug: open, team",
            lambda: refs(issues.label_list(tenant=slug, label="bug", status="open")),
            top(bug_open, label_sort_key),
            PAGE + 1,
        ),
        Listing(
            OLD_LIST,
            lambda: [i.reference for i in issues.issue_page(tenant=slug, project_key="WEB", status="open").items],
            top(open_web, by_number),
            PAGE + 1,
        ),
    ]


# ---------------------------------------------------------------------------- measuring


@dataclass
class Measured:
    meter: capacity.CapacityMeter
    answers: list[list[dict[str, Any]]]
    seconds: float
    shown: list[str]


def call(listing: Listing) -> Measured:
    answers: list[list[dict[str, Any]]] = []
    token = _answers.set(answers)
    try:
        with capacity.measure() as meter:
            began = time.perf_counter()
            shown = listing.call()
            seconds = time.perf_counter() - began
    finally:
        _answers.reset(token)
    return Measured(meter, answers, seconds, shown)


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
    answers = calls[0].answers
    returned = [bench.item_size(item) for answer in answers for item in answer]
    entry = max(returned, default=0)
    extras: list[bench.Difference] = []
    if listing.name == OLD_LIST:
        # The floor is the page it shows (26 issues, one request); the rest is what the filter discards.
        shown_bytes = sum(returned)
        floor = bench.Cost(bench.read_units(shown_bytes), 0, 1)
        read, read_bytes, rcu, requests = old_list_reads(team)
        why = (
            f"the FilterExpression reads every issue newest first until 26 are open: {read:,} issues "
            f"({read_bytes:,} B) in {requests} requests of Limit 26, each rounded to 4 KB"
        )
        extra = bench.Cost(rcu, 0, requests) + bench.Cost(-floor.rcu, 0, -1)
        extras.append(bench.Difference(why, extra.times(repeat)))
        entry = max(team.sizes.values())
    else:
        floor = bench.total(bench.Cost(bench.read_units(sum(bench.item_size(i) for i in a)), 0, 1) for a in answers)
        floor = bench.Cost(floor.rcu, 0, 1)  # one request: a second one would be above the floor
    empty = 0 if listing.name == OLD_LIST else sum(1 for answer in answers if not answer)  # its reads are charged
    local = bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * empty).times(repeat)) if empty else None
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
