"""A writer process for the order-number concurrency tests (run with the "spawn" start method).

It imports nothing from the test session: it points ddbmodels at the endpoint and prefix it is
given, waits at the barrier with the other processes, then runs ``threads`` writer threads that
each place ``per_thread`` orders (spread over several customers) with one counter, and sends
back what every writer was told.
"""

from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import ddbmodels
from ddbmodels import orders
from ddbmodels.core import capacity
from ddbmodels.core.errors import SequenceContention
from ddbmodels.counters import counter_value


def _writer(
    customers: list[str], counter: str, mode: str, process: int, thread: int, per_thread: int, start: threading.Barrier
) -> dict[str, Any]:
    claims: list[tuple[int, str, str, int]] = []
    given_up = 0
    start.wait(timeout=60)
    with capacity.measure() as meter:
        for i in range(per_thread):
            customer = customers[(thread + i) % len(customers)]
            while True:
                try:
                    claimed = orders.order_place(
                        customer=customer,
                        product="seats",
                        quantity=1 + i % 5,
                        delivery="standard",
                        placed_by=f"p{process}-t{thread}",
                        mode=mode,
                        counter=counter,
                    )
                except SequenceContention:
                    given_up += 1  # every attempt lost, nothing written: the caller may simply try again
                    continue
                claims.append((claimed.number, customer, claimed.item.placed, claimed.attempts))
                break
    return {"claims": claims, "given_up": given_up, "meter": meter.as_dict()}


def place_orders(
    results: Any,
    barrier: Any,
    *,
    endpoint_url: str,
    table_prefix: str,
    customers: list[str],
    counter: str,
    mode: str,
    process: int,
    threads: int,
    per_thread: int,
) -> None:
    """Process entry point: put ``{"process", "claims", "given_up", ...}`` (or ``"error"``) on ``results``."""
    try:
        ddbmodels.configure(endpoint_url=endpoint_url, region="us-east-1", table_prefix=table_prefix)
        counter_value(counter)  # one call before the threads start, so they share a ready connection
        start = threading.Barrier(threads)
        barrier.wait(timeout=120)  # every process is ready: go together
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [
                pool.submit(_writer, customers, counter, mode, process, thread, per_thread, start)
                for thread in range(threads)
            ]
            outcomes = [future.result() for future in futures]
        results.put(
            {
                "process": process,
                "claims": [claim for outcome in outcomes for claim in outcome["claims"]],
                "given_up": sum(outcome["given_up"] for outcome in outcomes),
                "conditional_failures": sum(outcome["meter"]["conditional_failures"] for outcome in outcomes),
                "rcu": sum(outcome["meter"]["rcu"] for outcome in outcomes),
                "wcu": sum(outcome["meter"]["wcu"] for outcome in outcomes),
                "seconds": time.monotonic() - began,
            }
        )
    except BaseException:
        results.put({"process": process, "error": traceback.format_exc()})
        raise
