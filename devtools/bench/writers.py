"""Writers under contention: N threads started together, each claiming numbers, each metered on its own."""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from ddbmodels.core import capacity
from ddbmodels.core.errors import SequenceContention


def progress_bar(**options: Any) -> tqdm:
    """A tqdm bar on stderr, shown only when stderr is a terminal."""
    return tqdm(file=sys.stderr, disable=not sys.stderr.isatty(), **options)


# ---------------------------------------------------------------------------- writers under contention


@dataclass
class Contended:
    """What ``contend`` measured: the writers' meters summed, the numbers they won, what it took."""

    meter: capacity.CapacityMeter
    seconds: float
    numbers: list[int]
    attempts: int  # every attempt, lost or won (given-up calls included)
    max_attempts: int  # the most one claim needed
    gave_up: int  # SequenceContention: a call lost every race; its writer tried that claim again
    latencies: list[float]  # seconds per claim, sorted
    sample: Any

    @property
    def lost(self) -> int:
        return self.attempts - len(self.numbers)

    def latency_ms(self, quantile: float) -> float:
        return round(1000 * self.latencies[min(len(self.latencies) - 1, int(quantile * len(self.latencies)))], 2)

    def figures(self) -> dict[str, Any]:
        """What every contention bench reports: throughput, lost races and refusals per claim, latencies, totals."""
        n, meter = len(self.numbers), self.meter
        return {
            "claims": n,
            "seconds": round(self.seconds, 3),
            "per_s": round(n / self.seconds, 1),
            "lost_races_per": round(self.lost / n, 4),
            "refused_per": round(meter.conditional_failures / n, 4),
            "max_attempts": self.max_attempts,
            "gave_up": self.gave_up,
            "throttles": meter.throttles,
            "p50_ms": self.latency_ms(0.5),
            "p99_ms": self.latency_ms(0.99),
            "max_ms": self.latency_ms(1.0),
            "totals": {"attempts": self.attempts, "lost_races": self.lost, **meter.as_dict()},
        }


def contend(
    writers: int, claims: int, claim: Callable[[int, int], Any], *, give_up_after: int | None = None, desc: str = ""
) -> Contended:
    """``claims`` calls of ``claim(writer, i)`` (a ``Claimed``) from ``writers`` threads started together.

    Each thread has its own meter. A claim that gives up (``SequenceContention``) is tried again,
    until ``give_up_after`` attempts in all; then the run fails, the other writers stopped.
    """
    start, stop = threading.Barrier(writers + 1), threading.Event()
    bar = progress_bar(total=claims, desc=desc, unit="claim", leave=False)

    def writer(index: int, share: int) -> dict[str, Any]:
        out: dict[str, Any] = {"numbers": [], "attempts": [], "gave_up": 0, "latencies": [], "sample": None}
        with capacity.measure() as meter:  # context variables: this thread's calls only
            out["meter"] = meter
            start.wait()
            for i in range(share):
                attempts, began = 0, time.perf_counter()
                while not stop.is_set():
                    try:
                        claimed = claim(index, i)
                    except SequenceContention as error:
                        out["gave_up"] += 1
                        attempts += int(error.context.get("attempts", 0))  # type: ignore[call-overload]
                        if give_up_after is not None and attempts >= give_up_after:
                            raise
                        continue
                    attempts += claimed.attempts
                    out["numbers"].append(claimed.number)
                    out["sample"] = out["sample"] or claimed.item
                    break
                out["latencies"].append(time.perf_counter() - began)
                out["attempts"].append(attempts)
                bar.update(1)
        return out

    shares = [claims // writers + (1 if i < claims % writers else 0) for i in range(writers)]
    with bar, ThreadPoolExecutor(max_workers=writers, thread_name_prefix="writer") as pool:
        futures = [pool.submit(contextvars.copy_context().run, writer, i, n) for i, n in enumerate(shares)]
        try:
            start.wait()
            began = time.perf_counter()
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            seconds = time.perf_counter() - began
            for future in done:
                if future.exception() is not None:
                    raise future.exception()  # type: ignore[misc]
        except BaseException:
            stop.set()
            start.abort()  # writers still waiting at the start line give up at once
            raise
    results = [f.result() for f in futures]
    meter = capacity.CapacityMeter()
    for result in results:
        meter.add(result["meter"])
    attempts = [n for r in results for n in r["attempts"]]
    return Contended(
        meter=meter,
        seconds=seconds,
        numbers=sorted(n for r in results for n in r["numbers"]),
        attempts=sum(attempts),
        max_attempts=max(attempts, default=0),
        gave_up=sum(r["gave_up"] for r in results),
        latencies=sorted(s for r in results for s in r["latencies"]),
        sample=next((r["sample"] for r in results if r["sample"] is not None), None),
    )
