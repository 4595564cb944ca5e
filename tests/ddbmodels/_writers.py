"""A writer process for the concurrency test (run with the "spawn" start method).

It imports nothing from the test session: it points ddbmodels at the endpoint and prefix it is
given, waits at the barrier with the other processes, then runs ``threads`` writer threads that
each create ``per_thread`` issues in one project, and sends back what every writer claimed.
"""

from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import ddbmodels
from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.core.errors import SequenceContention


def _writer(
    tenant: str, key: str, process: int, thread: int, per_thread: int, start: threading.Barrier
) -> dict[str, Any]:
    claims: list[tuple[int, str, int]] = []
    given_up = 0
    start.wait(timeout=60)
    with capacity.measure() as meter:
        for i in range(per_thread):
            title = f"p{process}-t{thread}-i{i}"
            while True:
                try:
                    claimed = issues.issue_create(tenant=tenant, project_key=key, title=title, reporter="writer")
                except SequenceContention:
                    given_up += 1  # every attempt lost, nothing written: a caller may simply try again
                    continue
                claims.append((claimed.number, title, claimed.attempts))
                break
    return {"claims": claims, "given_up": given_up, "conditional_failures": meter.conditional_failures}


def write_issues(
    results: Any,
    barrier: Any,
    *,
    endpoint_url: str,
    table_prefix: str,
    tenant: str,
    key: str,
    process: int,
    threads: int,
    per_thread: int,
) -> None:
    """Process entry point: put ``{"process", "claims", "given_up", ...}`` (or ``"error"``) on ``results``."""
    try:
        ddbmodels.configure(endpoint_url=endpoint_url, region="us-east-1", table_prefix=table_prefix)
        # One call before the threads start, so they share a ready connection.
        issues.issue_numbers(tenant=tenant, project_key=key)
        start = threading.Barrier(threads)
        barrier.wait(timeout=120)  # every process is ready: go together
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [
                pool.submit(_writer, tenant, key, process, thread, per_thread, start) for thread in range(threads)
            ]
            outcomes = [future.result() for future in futures]
        results.put(
            {
                "process": process,
                "claims": [claim for outcome in outcomes for claim in outcome["claims"]],
                "given_up": sum(outcome["given_up"] for outcome in outcomes),
                "conditional_failures": sum(outcome["conditional_failures"] for outcome in outcomes),
                "seconds": time.monotonic() - began,
            }
        )
    except BaseException:
        results.put({"process": process, "error": traceback.format_exc()})
        raise
