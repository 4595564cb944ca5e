"""Writers in several spawned processes, each running several threads, started together.

``run_in_processes`` (the test's side) starts the processes and collects one report from each;
``write_in_threads`` (the process's side) points ddbmodels at the test's DynamoDB Local, runs
the writer threads and merges what they report. A writer module (``issue_writers``,
``orders.order_writers``) only says what one thread writes.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

import ddbmodels
from ddbmodels.core.errors import SequenceContention

T = TypeVar("T")
Writer = Callable[[int, threading.Barrier], dict[str, Any]]


def run_in_processes(target: Callable[..., None], processes: int, **kwargs: Any) -> list[dict]:
    """Start ``processes`` spawned processes running ``target(results, barrier, process=i, **kwargs)``.

    Each process puts one report dict on ``results`` (with "error" when it failed); the barrier
    starts them together. Fails the test on a missing report or any reported error.
    """
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    barrier = ctx.Barrier(processes)
    workers = [
        ctx.Process(target=target, args=(results, barrier), kwargs={**kwargs, "process": process}, daemon=True)
        for process in range(processes)
    ]
    for worker in workers:
        worker.start()
    reports: list[dict] = []
    try:
        for _ in workers:
            reports.append(results.get(timeout=240))
    except queue.Empty:
        pytest.fail(f"writers did not report in time; got {len(reports)} of {processes}")
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    errors = [report["error"] for report in reports if "error" in report]
    assert not errors, "\n".join(errors)
    assert sorted(report["process"] for report in reports) == list(range(processes))
    return reports


def write_in_threads(
    results: Any,
    barrier: Any,
    *,
    process: int,
    threads: int,
    endpoint_url: str,
    table_prefix: str,
    warm_up: Callable[[], object],
    writer: Writer,
) -> None:
    """In a spawned process: ``writer(thread, start)`` on ``threads`` threads, once every process is ready.

    Puts ``{"process", "seconds", …}`` on ``results``, the threads' reports merged (lists joined,
    numbers added), or ``{"process", "error"}``.
    """
    try:
        ddbmodels.configure(endpoint_url=endpoint_url, region="us-east-1", table_prefix=table_prefix)
        warm_up()  # one call before the threads start, so they share a ready connection
        start = threading.Barrier(threads)
        barrier.wait(timeout=120)  # every process is ready: go together
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            outcomes = list(pool.map(lambda thread: writer(thread, start), range(threads)))
        merged: dict[str, Any] = {"process": process}
        for outcome in outcomes:
            for name, value in outcome.items():
                merged[name] = merged.get(name, [] if isinstance(value, list) else 0) + value
        results.put({**merged, "seconds": time.monotonic() - began})
    except BaseException:
        results.put({"process": process, "error": traceback.format_exc()})
        raise


def claim_until_won(claim: Callable[[], T]) -> tuple[T, int]:
    """Call ``claim`` until it wins a number; also how many calls gave up first.

    A call that gives up (SequenceContention: every attempt lost, nothing written) may simply be
    made again.
    """
    given_up = 0
    while True:
        try:
            return claim(), given_up
        except SequenceContention:
            given_up += 1


def interleaving(owners_by_number: list[object]) -> int:
    """How often the owner changes from one number to the next: 0 when each writer got one block."""
    return sum(1 for before, after in itertools.pairwise(owners_by_number) if before != after)
