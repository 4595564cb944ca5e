"""One bench run's life, shared by bench/load.py and bench/api_check.py: refuse, start, time, stop, clean up.

``Run.begin`` refuses a DynamoDB endpoint off this machine (``SystemExit``: the bench exits 2) and names the run's
fresh table prefix; ``start_services`` starts DynamoDB Local (unless one is given) and a Redis of the run's own,
configures Django in this process and migrates; ``start_processes`` starts the worker and the web server without
waiting (their ≈ 10–20 s of imports overlap the bench's own setup); ``wait_ready`` waits for both; ``finish``
stops the processes, collects their error lines, keeps their logs when asked, shows their tails on failure,
drops the run's tables from a shared DynamoDB and removes the work folder — on success, failure and Ctrl-C alike:
the bench runs inside ``with run:``, which turns a crash or Ctrl-C into the run's ``error`` and finishes.
Each step's seconds go to ``phases`` under the name the bench gives.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from load_parts.stack import (
    NotLoopback,
    Stack,
    environment,
    loopback_endpoint,
    make_workdir,
    remove_workdir,
    wait_for_worker,
)


class Stoppable(Protocol):
    def stop(self) -> None: ...


def migrate() -> None:
    """Django's tables in the run's database (before the web server and the worker start)."""
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


@dataclass
class Run:
    kind: str  # in the table prefix: tracker-bench-<hex>-<kind>-
    dynamodb_url: str | None  # None: DynamoDB Local of the run's own
    prefix: str
    settings: dict[str, str]  # the bench's own settings on top of stack.environment's
    stack: Stack = field(default_factory=lambda: Stack(make_workdir()))
    env: dict[str, str] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)
    configured: bool = False
    error: str | None = None  # what went wrong: a check's or invariant's failure, a crash, Ctrl-C
    others: list[Stoppable] = field(default_factory=list)  # stopped after the processes (pass-throughs, receivers)
    keep_logs: Path | None = None  # where the processes' logs are kept (none: not kept)
    log_lines: dict[str, list[str]] = field(default_factory=dict)  # each process's error lines, once finished
    began: float = field(default_factory=time.monotonic)
    mark: float = field(default_factory=time.monotonic)

    @classmethod
    def begin(cls, kind: str, settings: dict[str, str] | None = None) -> Run:
        """The run, nothing started yet; SystemExit when DYNAMODB_ENDPOINT_URL is off this machine."""
        try:
            dynamodb_url = loopback_endpoint(os.environ.get("DYNAMODB_ENDPOINT_URL"))
        except NotLoopback as refused:
            raise SystemExit(f"refusing to run: {refused}") from None
        prefix = f"{os.environ.get('DYNAMODB_TABLE_PREFIX', 'tracker-')}bench-{secrets.token_hex(4)}-{kind}-"
        return cls(kind, dynamodb_url, prefix, dict(settings or {}))

    def phase(self, name: str) -> None:
        """The seconds since the last phase (or the start) under ``name``."""
        now = time.monotonic()
        self.phases[name] = round(now - self.mark, 1)
        self.mark = now

    def start_services(self) -> None:
        """DynamoDB (given or its own) and Redis; the run's variables into this process, Django set up; migrated."""
        stack = self.stack
        stack.start_services(self.dynamodb_url)
        made = environment(
            workdir=stack.workdir, dynamodb_url=stack.dynamodb_url, redis_url=stack.redis_url, prefix=self.prefix
        )
        os.environ.update({**made, **self.settings})
        from tracker.env import load_dotenv

        load_dotenv()  # .env for what the run does not set, as manage.py
        import django

        django.setup()
        from ddbmodels.core import hot_keys

        hot_keys.configure(sample_rate=0.0)  # this process's own calls (setup, checks) are not the load
        self.env = dict(os.environ)
        self.configured = True
        migrate()
        self.phase("services and migrate")

    def start_processes(
        self, *, worker_concurrency: int, dynamodb_url: str | None = None, throttle_marker: str | None = None
    ) -> None:
        """The worker and the web server, not waited for; the web server's DynamoDB through ``dynamodb_url`` (a
        pass-through) when given, or through a ``Throttle`` for ``throttle_marker``."""
        self.stack.start_worker(self.env, worker_concurrency)
        web_env = {**self.env, "DYNAMODB_ENDPOINT_URL": dynamodb_url} if dynamodb_url else self.env
        self.stack.start_web(web_env, throttle_marker=throttle_marker, wait=False)

    def wait_ready(self, phase: str) -> None:
        """Until the web server listens and a worker answers a ping (at most 2 minutes each)."""
        self.stack.wait_web()
        wait_for_worker(120)
        self.phase(phase)

    def __enter__(self) -> Run:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, trace: object) -> bool:
        """A crash or Ctrl-C becomes ``error`` (the crash's traceback printed); then ``finish``, always."""
        if isinstance(value, KeyboardInterrupt):
            self.error = "interrupted"
        elif isinstance(value, Exception):
            traceback.print_exception(value)
            self.error = f"{type(value).__name__}: {value}"
        self.mark = time.monotonic()
        self.finish()
        self.phase("stop and clean up")
        return isinstance(value, (KeyboardInterrupt, Exception))

    def finish(self) -> None:
        """Stop everything started (``others`` after the processes), drop the run's tables from a shared DynamoDB,
        remove the work folder; each process's error lines into ``log_lines``."""
        stack = self.stack
        stack.stop_processes()
        self.log_lines = stack.log_errors()
        if self.keep_logs is not None:
            self.keep_logs.mkdir(parents=True, exist_ok=True)
            stack.keep_logs(self.keep_logs)  # load-web.log, load-worker.log: what the server and the worker said
        if self.error:
            print(stack.tails(), file=sys.stderr)
        for started in self.others:
            started.stop()
        self.others.clear()
        if self.configured and not stack.own_dynamodb:
            try:
                from devtools.bench import drop_tables

                drop_tables(self.prefix)
            except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
                print(f"warning: could not delete the tables {self.prefix}*: {failure}", file=sys.stderr)
        stack.stop()
        remove_workdir(stack.workdir)


def interrupted(*_: object) -> None:
    """Ctrl-C or SIGTERM: stop the run; everything started is stopped on the way out."""
    raise KeyboardInterrupt


def main_of(
    benchmark: str,
    args: argparse.Namespace,
    run: Callable[[argparse.Namespace], tuple[dict[str, Any], str | None]],
    written: Callable[[dict[str, Any], TextIO], None],
) -> int:
    """A bench's ``main``: ``run`` (Ctrl-C and SIGTERM stop it cleanly), ``written`` (the report to ``say``, the
    files), one JSON line last on stdout; 0 when it held, 1 when not, 2 when refused (``SystemExit``)."""
    for signum in (signal.SIGINT, signal.SIGTERM):  # also when started in the background (SIGINT ignored there)
        signal.signal(signum, interrupted)
    try:
        figures, error = run(args)
    except SystemExit as refused:
        print(refused, file=sys.stderr)
        return 2
    written(figures, sys.stderr if args.json else sys.stdout)
    if error:
        print(f"FAILED: {error}", file=sys.stderr)
    summary = {"benchmark": benchmark, "ok": error is None, **figures, **({"error": error} if error else {})}
    print(json.dumps(summary, separators=(",", ":"), default=str))
    return 1 if error else 0
