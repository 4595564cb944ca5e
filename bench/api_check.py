"""An independent client of the REST API: every "Done when" of issue 22, checked over HTTP against a running site.

What it starts (``load_parts/run.py`` and ``stack.py``, as bench/load.py), all on 127.0.0.1 and free ports, all
stopped at the end (also on failure and Ctrl-C): DynamoDB Local in memory — or the one ``DYNAMODB_ENDPOINT_URL``
names, with tables under a fresh prefix dropped afterwards —, a Redis of its own, ``manage.py runserver --noreload``
whose DynamoDB is reached through a *lossy proxy* (``api_parts/lossy.py``, a ``load_parts/passthrough.py`` as
load.py's throttle: a write's answer lost after the write was done, the share set per check), a Celery worker
(webhook deliveries), and a webhook receiver (``api_parts/receiver.py``: 500 to the first two attempts of each
delivery, then 204).

What it makes before calling (``api_parts/setup.py``): teams acme (alice owner, bob member, carol viewer) and globex
(dave owner), acme/WEB with ``--issues`` open issues written in bulk, acme/API (a milestone) and globex/APP; the
tokens by ``manage.py create_api_token`` (its last line). Then only HTTP (``api_parts/client.py``), in this order:

1. ``GET /api/v1/openapi.json`` validates as OpenAPI 3.1 and every operation states ``x-dynamodb-cost``;
2. acme/WEB's open issues page by page (``--limit``), following ``Link: rel="next"``: each issue once, one
   DynamoDB request a page (the answer's ``X-DynamoDB-Requests``), its RCU;
3. ``--threads`` × ``--keys`` creates with Idempotency-Keys while the proxy loses 30 % of the write answers (503s
   and dropped connections retried with the same key): each key's issue exactly once in the list, the number
   answered is the one stored, its history (read through the API) tells its creation once, a key sent again
   answers the first answer byte for byte;
4. the same key with another body: 422; two at once with one key: 409; GET with If-None-Match: 304; PATCH
   with a stale If-Match: 412 with the current issue, nothing written; another team's URLs: 404; a viewer's
   write: 403; no token: 401;
5. a webhook registered (admin token), an issue created: the receiver's 500s retried with one ``webhook-id``,
   every attempt verified with ``standardwebhooks``, the delivery logged as delivered;
6. every operation of the API (``api_parts/tour.py``) called ``--rounds`` times with its success answer — reads
   and writes, bob's ``write`` token and alice's ``admin`` one —, and every operation of the OpenAPI document
   measured by the run (one never answered 2xx/304 fails the check);
7. calls without a token until a 429 (``API_RATE_LIMIT_ANONYMOUS`` is 30/minute for the run) with
   ``Retry-After``, ``RateLimit``, ``RateLimit-Policy`` and ``X-RateLimit-*``.

Reported: each check (ok, what failed), requests and RCU per list page, one row per operation (its requests, p50
and p99 of all of them — with ``--rounds`` 3 the p99 is the slowest —, its statuses), the answers
lost and the retries, the deliveries and their attempts; ``bench/out/api_check.json`` (``--out``) and one JSON
line last. Exit 0 when every check held, 1 when not, 2 when refused (an endpoint off this machine).
``--quick``: 120 issues at 25 a page, 2 × 4 creates under loss, 3 rounds of every operation (``make bench-quick``
and tests/bench/test_api_check.py run it; ≈ 45–75 s, most of it starting the web server and the worker).

    .venv/bin/python bench/api_check.py
    .venv/bin/python bench/api_check.py --quick
    .venv/bin/python bench/api_check.py --quick --threads 4 --keys 20 --lose-reads --dynamodb-attempts 1

The last: harsher loss (reads' answers lost too, botocore's retries off: ≈ 40–50 of 80 creates answered 503 and
sent again with their key), so the replays' recording is exercised, each issue's history still telling its
creation once.
"""

from __future__ import annotations

import argparse
import functools
import json
import secrets
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: find ddbmodels, tracker, devtools

from api_parts import answers, checks, setup, tour  # noqa: E402
from api_parts.client import Calls  # noqa: E402
from api_parts.lossy import LossyProxy  # noqa: E402
from api_parts.receiver import Receiver  # noqa: E402
from load_parts.figures import percentile  # noqa: E402
from load_parts.run import Run, main_of  # noqa: E402

OUT = ROOT / "bench" / "out"
PASSWORD = "api-" + secrets.token_hex(8)
RUN_SETTINGS = {
    "API_RATE_LIMIT_ANONYMOUS": "30/minute",  # the 429 within a few calls (tokens keep the default 5000/hour)
    "WEBHOOK_RETRY_SCHEDULE": "1,1,1,1,1,1,1,1,1",  # the receiver's 500s retried within seconds, not hours
    "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32",  # the receiver is on this machine
}


def arguments(argv: list[str] | None) -> argparse.Namespace:
    made = argparse.ArgumentParser(prog="bench/api_check.py", description=(__doc__ or "").splitlines()[0])
    made.add_argument("--issues", type=int, default=1200, help="open issues of the listed project (default: 1200)")
    made.add_argument("--limit", type=int, default=100, help="issues a list page (default: 100, the most)")
    made.add_argument("--threads", type=int, default=8, help="writers creating under loss (default: 8)")
    made.add_argument("--keys", type=int, default=10, help="creates per writer under loss (default: 10)")
    made.add_argument(
        "--rounds", type=int, default=10, help="calls of each API operation in the tour of them all (default: 10)"
    )
    made.add_argument(
        "--lose-reads", action="store_true", help="the creates under loss lose reads' answers too (default: writes')"
    )
    made.add_argument(
        "--dynamodb-attempts",
        type=int,
        default=None,
        help="botocore's attempts for each DynamoDB call of the site (default: the application's, 3)",
    )
    made.add_argument("--out", type=Path, default=OUT, help="where api_check.json goes (default: bench/out)")
    made.add_argument("--json", action="store_true", help="only the JSON line on stdout (the report on stderr)")
    made.add_argument("--quick", action="store_true", help="small sizes (≈ 1 min); options given still win")
    args = made.parse_args(argv)
    from devtools.bench import quick_sizes

    quick_sizes(made, args, issues=120, limit=25, threads=2, keys=4, rounds=3)
    if not 1 <= args.limit <= 100 or args.issues < 1 or args.threads < 1 or args.keys < 1 or args.rounds < 1:
        made.error("need 1 ≤ --limit ≤ 100 and --issues, --threads, --keys, --rounds ≥ 1")
    return args


def latencies(calls: Calls) -> list[dict[str, Any]]:
    """One row per operation (by path, then method): its requests, p50/p99 over all of them, its statuses."""
    return [
        {
            "operation": name,
            "requests": len(seconds),
            "p50_ms": round(percentile(seconds, 50) * 1000, 1),
            "p99_ms": round(percentile(seconds, 99) * 1000, 1),
            "statuses": dict(sorted(calls.statuses[name].items())),
        }
        for name, seconds in sorted(calls.seconds.items(), key=lambda item: item[0].split(" ", 1)[::-1])
    ]


def report(figures: dict[str, Any]) -> str:
    lines = ["check                              ok    checked  failures / figures"]
    for name, found in figures.get("checks", {}).items():
        extra = {k: v for k, v in found.items() if k not in ("ok", "checked", "failures")}
        lines.append(f"{name:<34} {'yes' if found['ok'] else 'NO':<5} {found['checked']:>7}  {extra}")
        lines += [f"    ✗ {failure}" for failure in found["failures"]]
    lines.append("")
    lines.append(f"{'operation':<78} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for row in figures.get("latency", []):
        lines.append(
            f"{row['operation']:<78} {row['requests']:>8} {row['p50_ms']:>8} {row['p99_ms']:>8}  {row['statuses']}"
        )
    return "\n".join(lines)


STEPS: dict[str, Callable[[checks.Context], dict[str, Any]]] = {
    "openapi document": checks.openapi_document,
    "list pages at one request": checks.list_pages,
    "creates under 30% lost answers": checks.creates_under_loss,
    "422 key reused, 409 in flight": answers.key_reuse_and_in_flight,
    "304 and 412": answers.etags,
    "404 other team, 403 viewer": answers.other_team_and_viewer,
    "webhooks signed, retried, logged": answers.webhooks,
    "every operation answered": tour.every_operation,
    "429 with its headers": answers.rate_limited,
}


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    attempts = {"DYNAMODB_MAX_ATTEMPTS": str(args.dynamodb_attempts)} if args.dynamodb_attempts else {}
    this = Run.begin("api", {**RUN_SETTINGS, **attempts})
    stack, calls = this.stack, Calls()
    figures: dict[str, Any] = {"table_prefix": this.prefix, "checks": {}, "ready_phases": this.phases}
    proxy: LossyProxy | None = None
    say = sys.stderr if args.json else sys.stdout
    with this:
        this.start_services()
        proxy = LossyProxy(stack.dynamodb_url)
        this.others.append(proxy)
        # The worker and the web server start (≈ 10–20 s of imports) while the tables and teams are made.
        this.start_processes(worker_concurrency=1, dynamodb_url=proxy.url)
        setup.prepare(issues=args.issues, password=PASSWORD)
        this.phase("tables, teams, issues")
        tokens = setup.tokens(this.env)
        this.phase("tokens (the command)")
        this.wait_ready("web and worker up")
        receiver = Receiver(fail_first=2)
        this.others.append(receiver)
        figures["ready_seconds"] = round(time.monotonic() - this.began, 1)
        print(f"api_check: {stack.web_url}, tables {this.prefix}*, ready in {figures['ready_seconds']} s", file=say)
        ctx = checks.Context(
            base=f"{stack.web_url}/api/v1",
            calls=calls,
            tokens=tokens,
            proxy=proxy,
            receiver=receiver,
            big=setup.BIG,
            issues=args.issues,
            limit=args.limit,
            threads=args.threads,
            keys=args.keys,
            rounds=args.rounds,
            lose_reads=args.lose_reads,
        )
        for name, step in STEPS.items():
            mark = time.monotonic()
            try:
                figures["checks"][name] = step(ctx)
            except Exception as failure:  # noqa: BLE001 (one check's crash is its failure; the others still run)
                traceback.print_exception(failure)
                figures["checks"][name] = checks.result([f"{type(failure).__name__}: {failure}"], 0)
            figures["checks"][name]["seconds"] = round(time.monotonic() - mark, 1)
            stack.check_alive()
        failed = [name for name, found in figures["checks"].items() if not found["ok"]]
        if failed:
            this.error = f"check(s) failed: {', '.join(failed)}"
    figures["log_errors"] = {name: lines[:5] for name, lines in this.log_lines.items() if lines}
    figures["latency"] = latencies(calls)
    figures["answers_lost"] = proxy.lost if proxy else 0
    figures["writes_through_proxy"] = proxy.writes if proxy else 0
    figures["seconds"] = round(time.monotonic() - this.began, 1)
    return figures, this.error


def written(args: argparse.Namespace, figures: dict[str, Any], say: TextIO) -> None:
    """The report to ``say``; api_check.json into ``--out``."""
    print(report(figures), file=say)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "api_check.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    return main_of("api_check", args, run, functools.partial(written, args))


if __name__ == "__main__":
    sys.exit(main())
