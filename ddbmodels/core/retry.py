"""The one retry loop: bounded attempts with full-jitter exponential backoff between them.

Full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"): before attempt k + 1 wait
a uniformly random time in [0, min(cap, base · 2^k)]. Writers that lost a race to each other
spread out instead of colliding again in lockstep, and the total wait stays bounded. Used by the
sort-key sequence, the gapless counter, the leaderboard's transactions and batch writes;
botocore's own "standard" retry mode does the same for throttling and 5xx answers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """How many attempts, and the base and cap of the full-jitter delay between them."""

    attempts: int
    base_s: float
    cap_s: float

    def delay(self, failed: int, rng: random.Random) -> float:
        """The wait after the ``failed``-th failed attempt (1-based): uniform in [0, min(cap, base·2^failed)]."""
        return rng.uniform(0, min(self.cap_s, self.base_s * 2**failed))


def attempts(
    policy: Backoff,
    *,
    rng: random.Random | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Iterator[int]:
    """Attempt numbers 1 … ``policy.attempts``, sleeping a full-jitter delay before each one after the first.

    The caller ``return``s (or ``break``s) on success and ``continue``s on a retryable failure;
    when the loop ends on its own, every attempt failed. No sleep follows the last attempt.
    """
    rng = rng or random.Random()
    sleep = sleep or time.sleep  # looked up per call, so a test can patch time.sleep
    for attempt in range(1, policy.attempts + 1):
        if attempt > 1:
            sleep(policy.delay(attempt - 1, rng))
        yield attempt
