"""Tracker under load with realistic skew: the real web server and worker, Zipf-skewed teams, then the invariants.

What it starts (``load_parts/stack.py``), all on 127.0.0.1 and free ports, all stopped at the end
(also on failure and Ctrl-C): DynamoDB Local in memory — or the one ``DYNAMODB_ENDPOINT_URL``
names, as for the other benches, with tables under a fresh prefix that are dropped afterwards —
a Redis of its own, ``manage.py runserver --noreload`` and a Celery worker (the Procfile's
``--concurrency 2``), with the application's settings plus the run's database, tables and
``DYNAMODB_HOT_KEYS_SAMPLE_RATE=1``.

What it makes (``load_parts/teams.py``): ``--teams`` teams (``load-01`` is the hottest), three
projects each with ``--seed-issues`` issues (and their search documents), ``--users`` people
(members of every team) and a staff login. Then, for ``--seconds`` (``load_parts/users.py``):
``--hot-writers`` of the users create issues in ``load-01/WEB`` at once through the new-issue form
(its idempotency key; 5 % of forms sent twice); the others, logged in through the login form,
first take one step of each kind in the hot project (a create, a comment on another user's issue,
a status change, an attachment — detached again by every other member —, an order, the inbox),
whatever the clock, so every run makes every kind; then each picks a team by Zipf's law (rank k
weighs 1/k^s, ``--zipf-s``) and does what members do: issue lists, issue pages, search, creating
issues, moving their own issues to in progress and resolved (resolving awards them the
priority's points), comments, orders, the leaderboard, attachments (30 % detached again), the
inbox (opening a notification, marking all read). ``--throttle-share`` of the creates carry a
marker for which the web server's DynamoDB answers "throttled" on every attempt (a pass-through,
``stack.Throttle``; the first hot writer's first create always): the page must answer busy (503)
having written nothing. A quarter into the load the staff login starts ``backfill_project_counts``
and then ``reconcile_attachments`` from the admin's Jobs page; the worker runs them during the load.

Reported (``load_parts/report.py``): per page or action the requests, p50/p99/max latency and errors
by status code (5xx must be 0 but for a create's busy 503, counted apart as ``busy``); capacity per
request by page, by access pattern and by job from the app's own figures in Redis
(``tracker.capacity_stats``); the hottest partition keys with their share of their table
(``tracker.hot_key_stats``), and each table's hottest key by write units with its share of the
table's writes (``issues``: a project's collection and ``counters``: the global order counter are one
key by design; ``labels`` and ``idempotency_keys`` must stay at or under a quarter).

Then the invariants, both ways (``load_parts/invariants.py``), against what is stored as read by the
checker's own boto3 client — Scans of every table of the run, key formats written out in
``load_parts/stored.py``, never through ``ddbmodels`` — and the search documents by SQL: numbers per
project unique and gap-free; issues, comments, orders and attachments stored as the users were told
(fields, status, bytes, state) and nothing stored that no one was told (an extra or duplicated one
fails); busy creates wrote nothing (no issue, no idempotency record); one event per step; each
notification matches its event and a watcher, each notifying event reached every watcher of its issue
then but its actor (a lost fan-out fails), and each unread count equals the unread notifications;
label entries, search documents and project counts equal the issues; leaderboard scores equal the
points awarded; forms sent twice landing on their first result; the jobs finished; no 5xx. What the
worker derives later (notifications, label repairs, documents, counts) is read again until it holds
or ``--settle-seconds`` pass. Each kind made and checked is reported (``exercised``). Output: the
tables on stdout, ``bench/out/load.json`` and ``bench/out/load.md`` (``--out``), and one line of
JSON last. Exit 0 when every invariant held, 1 when not, 2 when refused (an endpoint off this machine).
``--quick``: 6 s, 6 users, 2 teams, a quarter of the creates throttled — every kind still made.

    .venv/bin/python bench/load.py
    .venv/bin/python bench/load.py --seconds 120 --users 24 --hot-writers 8 --teams 20 --zipf-s 1.2
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: find ddbmodels, tracker, devtools

from load_parts import report  # noqa: E402
from load_parts import stored as stored_items  # noqa: E402
from load_parts.checks import check, exercised, settle  # noqa: E402
from load_parts.client import Browser, Failed, Recorder  # noqa: E402
from load_parts.figures import check_spread, figures_of, queued_tasks, reset_figures  # noqa: E402
from load_parts.ledger import Ledger, Load, guarded  # noqa: E402
from load_parts.operator import operator  # noqa: E402
from load_parts.run import Run, main_of  # noqa: E402
from load_parts.stack import Stack  # noqa: E402
from load_parts.teams import THROTTLED, Layout, prepare  # noqa: E402
from load_parts.users import Member, hot_writer  # noqa: E402

OUT = ROOT / "bench" / "out"
PASSWORD = "load-" + secrets.token_hex(8)
JOIN_SLACK = 150  # seconds past the load's end a user may still be finishing (a job being followed)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    made = argparse.ArgumentParser(prog="bench/load.py", description=(__doc__ or "").splitlines()[0])
    made.add_argument("--seconds", type=float, default=45, help="how long the load runs (default: 45)")
    made.add_argument("--users", "--threads", type=int, default=16, help="virtual users, one thread each (default: 16)")
    made.add_argument(
        "--hot-writers", type=int, default=6, help="of the users, how many create issues in one project (default: 6)"
    )
    made.add_argument("--teams", type=int, default=12, help="teams (default: 12)")
    made.add_argument("--zipf-s", type=float, default=1.0, help="skew: team rank k weighs 1/k^s (default: 1.0)")
    made.add_argument("--seed", type=int, default=13, help="random seed (default: 13)")
    made.add_argument("--seed-issues", type=int, default=20, help="issues each project starts with (default: 20)")
    made.add_argument(
        "--worker-concurrency", type=int, default=2, help="Celery worker processes (default: 2, the Procfile's)"
    )
    made.add_argument(
        "--throttle-share",
        type=float,
        default=0.03,
        help="of the creates, the share whose writes DynamoDB answers 'throttled' (a busy answer; default: 0.03)",
    )
    made.add_argument(
        "--settle-seconds",
        type=float,
        default=90,
        help="how long the checks wait for the worker to catch up after the load (default: 90)",
    )
    made.add_argument("--out", type=Path, default=OUT, help="where load.json and load.md go (default: bench/out)")
    made.add_argument(
        "--json", action="store_true", help="print only the JSON line on stdout (the tables go to stderr)"
    )
    made.add_argument(
        "--quick",
        action="store_true",
        help="small sizes (≈ 30 s on 2 cores; what `make bench-quick` runs); options given explicitly still win",
    )
    args = made.parse_args(argv)
    from devtools.bench import quick_sizes

    # Quick: every kind still made and checked (creates, busy ones, comments, orders, attachments, inbox).
    quick_sizes(
        made, args, seconds=6, users=6, hot_writers=2, teams=2, seed_issues=5, throttle_share=0.25, settle_seconds=30
    )
    if args.users < 1 or not 0 <= args.hot_writers < args.users or args.teams < 1 or args.seconds <= 0:
        made.error("need --users ≥ 1, 0 ≤ --hot-writers < --users, --teams ≥ 1 and --seconds > 0")
    return args


def drive(args: argparse.Namespace, stack: Stack, layout: Layout) -> tuple[Load, float]:
    """Log everybody in, start the clock, run the users and the operator; the load and its seconds."""
    recorder, ledger = Recorder(), Ledger()
    load = Load(stack.web_url, layout, recorder, ledger, args.zipf_s, args.seed, args.seconds, args.throttle_share)
    ready = threading.Barrier(args.users + 2)

    def user(index: int) -> None:
        me = layout.users[index]
        browser = Browser(stack.web_url, recorder)
        try:
            browser.login(me, layout.password)
        finally:
            ready.wait()
        load.start.wait()
        if index < args.hot_writers:
            hot_writer(load, browser, me, index)
        else:
            Member(load, browser, me, index).run()

    def staff() -> None:
        browser = Browser(stack.web_url, recorder)
        try:
            browser.login(layout.staff, layout.password)
        finally:
            ready.wait()
        load.start.wait()
        operator(load, browser)

    threads = [
        threading.Thread(target=guarded(load, f"user {i}", functools.partial(user, i)), daemon=True)
        for i in range(args.users)
    ]
    threads.append(threading.Thread(target=guarded(load, "operator", staff), daemon=True))
    for thread in threads:
        thread.start()
    ready.wait(timeout=300)
    reset_figures()
    load.began = time.monotonic()
    load.start.set()
    for thread in threads:
        thread.join(timeout=max(0.0, load.deadline + JOIN_SLACK - time.monotonic()))
    seconds = time.monotonic() - load.began
    if alive := [t for t in threads if t.is_alive()]:
        ledger.crashes.append(f"{len(alive)} virtual user(s) still running {JOIN_SLACK} s after the load ended")
    # The web server ships its hot keys at most every second, when a request ends: one more request.
    time.sleep(1.2)
    final = Browser(stack.web_url, Recorder())
    try:
        final.login(layout.users[-1], layout.password)
        final.get("after the load", f"/t/{layout.teams[0]}/leaderboard/")
    except Failed:
        pass
    return load, min(seconds, args.seconds)


# Django logs every 5xx answer at ERROR: a create answered busy (503) is one, expected, counted apart.
BUSY_LINE = re.compile(r"ERROR django\.request: Service Unavailable: /t/[^/]+/p/[A-Z][A-Z0-9]*/new/$")


def log_errors(found: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Each process's error lines (count and the first five), a busy create's 503 line counted apart."""
    made: dict[str, dict[str, Any]] = {}
    for name, lines in found.items():
        errors = [line for line in lines if not BUSY_LINE.search(line)]
        made[name] = {"count": len(errors), "first": errors[:5], "busy_answers": len(lines) - len(errors)}
    return made


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    this = Run.begin("load")
    stack, phases = this.stack, this.phases
    this.keep_logs = args.out  # load-web.log, load-worker.log beside load.json
    figures: dict[str, Any] = {"table_prefix": this.prefix, "phase_seconds": phases}
    say = sys.stderr if args.json else sys.stdout
    with this:
        this.start_services()
        # The worker and the web server start (≈ 10–20 s of imports) while the tables and teams are made.
        this.start_processes(
            worker_concurrency=args.worker_concurrency,
            throttle_marker=THROTTLED if args.throttle_share > 0 else None,
        )
        layout = prepare(
            teams=args.teams,
            users=args.users,
            seed_issues=args.seed_issues,
            password=PASSWORD,
            rng=random.Random(args.seed),
        )
        this.phase("tables and teams")
        this.wait_ready("web and worker up (after the teams)")
        phases["ready"] = round(time.monotonic() - this.began, 1)
        print(
            f"load: {stack.web_url}, DynamoDB {stack.dynamodb_url}, tables {this.prefix}*, "
            f"ready in {phases['ready']} s",
            file=say,
        )
        load, seconds = drive(args, stack, layout)
        phases["users and jobs"] = round(time.monotonic() - load.began, 1)
        stack.check_alive()
        figures.update(figures_of(args, load, layout, seconds, this.prefix))
        figures["queued_tasks_at_end"] = queued_tasks()
        stored, results, waited = settle(
            load, layout, lambda: stored_items.read(stack.dynamodb_url, this.prefix), args.settle_seconds
        )
        figures["settle_seconds"] = phases["settle and check"] = round(waited, 2)
        figures["throttled_writes"] = stack.throttle.throttled if stack.throttle else 0
        figures["stored_items"] = stored.items
        figures["exercised"] = exercised(load, stored)
        figures["invariants"] = check(load, layout, seconds, stored, results)
        spread = check_spread(figures["write_shares"])  # a burst of one team's creates: no derived key above 25 %
        figures["invariants"]["label and idempotency keys spread"] = {
            "checked": len(figures["write_shares"]),
            "failures": spread,
        }
        failed = [name for name, c in figures["invariants"].items() if c["failures"]]
        if failed:
            this.error = f"invariant(s) failed: {', '.join(failed)}"
    figures["log_errors"] = log_errors(this.log_lines)
    phases["whole run"] = round(time.monotonic() - this.began, 1)
    return figures, this.error


def written(args: argparse.Namespace, figures: dict[str, Any], say: TextIO) -> None:
    """The tables to ``say``; load.json and load.md into ``--out`` (when the load ran to its checks)."""
    if "invariants" in figures:
        print(report.text(figures), file=say)
        (args.out / "load.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
        (args.out / "load.md").write_text(report.markdown_report(figures))
        print(f"written: {args.out / 'load.json'}, {args.out / 'load.md'}", file=say)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    return main_of("load", args, run, functools.partial(written, args))


if __name__ == "__main__":
    sys.exit(main())
