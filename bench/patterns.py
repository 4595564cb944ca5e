"""Capacity per call of every access pattern of ddbmodels, beside DynamoDB's floor for it.

One representative, single-writer workload runs through the public functions of ``ddbmodels``,
all inside one ``capacity.measure()``: a project of one tenant, ``--issues`` issues created, read,
edited, paged, counted and one tombstoned; ``--orders`` orders placed in each numbering mode
(atomic and gapless), read, found by number, moved on, paged, read by time (sharded index);
attachments through every transition (directly and through the attach/detach flow with a file
store in a temporary directory), listed, found in flight and repaired; leaderboard awards, a
revoke, a sync, a bare score ``ADD``, top 10 and a rank; events put and read back by stream and by
day; the counter, jobs and project-listing patterns. The meter files every DynamoDB call under the
access pattern that made it (``capacity.access_pattern``; ``by_pattern``), and each pattern's
figures are divided by the times it was entered.

Beside each pattern stands DynamoDB's floor per call (``pattern_rows.rows``: the cost its docstring
states, worked out for the items this run wrote and read), DynamoDB Local's floor where Local
charges otherwise (a transaction's index entries twice, an empty Query nothing), and the ratio of
the measured units to Local's floor. Where a pattern reads or asks more than its floor the row
names why and by how much (computed for the call: size + 1 issues read per page, a shard's Limit,
the previous month's table); the measured figure must match exactly. A pattern with variants of
different cost gets one row per variant, each metered by a nested ``capacity.measure()`` as well;
the variants must add up to the pattern's figures in the one meter.

Sharded reads are given something in every shard (assignees, event streams and in-flight
attachments are picked so: the shard suffixes are crc32s), so that no Query finds nothing.

Printed on stdout: the table, the notes on the floors and last exactly one line of JSON.
``--plot PATH`` draws measured and floor units per call as a horizontal bar chart
(``docs/capacity_by_pattern.png``). Exit status 0 when every check held and every figure is its
floor or explained, 1 when not (a call untagged, the meter's counts not the calls made, a wrong
result, a figure below its floor or unexplained), 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/patterns.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from pattern_rows.api_lists import run_api_lists
from pattern_rows.bulk import run_bulk
from pattern_rows.chart import chart
from pattern_rows.collections import run_orders, run_projects_and_issues
from pattern_rows.history import run_history
from pattern_rows.idempotency import run_idempotency
from pattern_rows.issue_edit import run_issue_edit
from pattern_rows.labels import run_label_prefix, run_labels
from pattern_rows.milestones import run_milestones
from pattern_rows.others import (
    run_attachments,
    run_board,
    run_events,
    run_leaderboard,
    run_palette,
    run_small_patterns,
)
from pattern_rows.preferences import run_preferences
from pattern_rows.rows import ORDER_SHARDS, check_item_sizes
from pattern_rows.webhook_delivery import run_webhook_delivery
from pattern_rows.webhooks import run_webhooks
from pattern_rows.workload import AWARDED, Workload, judge_rows

from ddbmodels import events
from ddbmodels.core import capacity, tables
from devtools import bench


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("patterns", __doc__)
    bench.count(parser, "--issues", 30, "issues created")
    bench.count(parser, "--orders", 10, "orders per numbering mode")
    bench.count(parser, "--events", 5, "events put")
    parser.add_argument("--plot", type=Path, metavar="PATH", help="draw the chart (e.g. docs/capacity_by_pattern.png)")
    args = parser.parse_args(argv)
    if args.issues <= AWARDED + 8:
        parser.error(f"--issues must be more than {AWARDED + 8}: {AWARDED} are awarded, 8 more edited, one deleted")
    if 2 * args.orders < ORDER_SHARDS:  # numbers go round-robin over the time shards
        parser.error(f"--orders must be at least {-(-ORDER_SHARDS // 2)}: every time shard should hold an order")
    return args


def measure(run: bench.Run) -> None:
    args = run.args
    began = time.perf_counter()
    tables.create_all()
    events.create_events_table(events.events_table_name(events.DEFAULT_PERIOD, datetime.now(UTC)))
    work = Workload()
    with tempfile.TemporaryDirectory(prefix="bench-patterns-") as store_dir, capacity.measure() as meter:
        issues = run_projects_and_issues(work, args.issues)
        run_board(work)
        run_orders(work, args.orders)
        run_attachments(work, store_dir)
        run_leaderboard(work, issues)
        run_events(work, args.events)
        run_small_patterns(work)
        run_label_prefix(work)
        run_labels(work)
        run_palette(work)
        run_preferences(work)
        run_webhooks(work)
        run_milestones(work)
        run_bulk(work)
        run_history(work)  # after run_events: its issue's events stay out of the day run_events counted
        run_issue_edit(work)
        run_idempotency(work)
        run_webhook_delivery(work)
        run_api_lists(work)
    run.figures["seconds"] = round(time.perf_counter() - began, 2)
    run.figures["totals"] = meter.as_dict()
    run.figures["largest_item_bytes"] = check_item_sizes(run.target.prefix)  # the constant floors' premise
    run.figures["patterns"] = judge_rows(run, meter, work)


COLUMNS = bench.columns("pattern:s | calls:d | @rcu | @wcu | @req | @verdict")


def show(run: bench.Run) -> None:
    rows = run.figures.get("patterns")
    bench.show_table(None, COLUMNS, rows)
    if rows and run.args.plot:
        bench.draw(chart, rows, run.args.plot, run.figures, str(run.args.plot))


def main(argv: list[str] | None = None) -> int:
    headline = ", {issues} issues, {orders} orders per mode"
    return bench.run("patterns", parse_args(argv), measure, show, headline=headline)


if __name__ == "__main__":
    sys.exit(main())
