"""Run writer functions in several spawned processes and collect one report from each."""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable
from typing import Any

import pytest


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
    return reports
