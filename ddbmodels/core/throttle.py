"""A token bucket that holds a bulk writer to a WCU budget (capacity units per second).

Tokens accrue at ``rate`` per second up to ``burst``; a writer ``take``s what it is about to
spend (waiting while the bucket is short) and ``settle``s the difference once DynamoDB's
answer says what the write really cost (ConsumedCapacity), so the bucket may go into debt and
the next take waits it off. The bucket starts *empty*, and ``drain`` waits off the last debt:
after ``drain`` the units spent since the bucket was made are ≤ ``rate`` × the seconds elapsed,
so the rate a caller measures stays under the budget. No library: the few well-kept ones
(``limits``, ``pyrate-limiter``) count calls per window, not a cost known only after the call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

EPSILON = 1e-6  # units: float rounding of (now - then) × rate must not leave a take waiting forever


class TokenBucket:
    """``rate`` units per second, at most ``burst`` saved up (default: one second's worth)."""

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else rate)
        self._clock = clock
        self._sleep = sleep
        self._tokens = 0.0
        self._at = clock()
        self._lock = threading.Lock()
        self.waited_s = 0.0  # total time spent waiting for tokens

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now

    def take(self, units: float) -> None:
        """Wait until ``units`` are available (at most ``burst`` are asked at once), then spend them."""
        units = max(0.0, float(units))
        needed = min(units, self.burst)
        while True:
            with self._lock:
                self._refill()
                if self._tokens >= needed - EPSILON:
                    self._tokens -= units  # spend all of it; beyond the burst becomes debt
                    return
                wait = (needed - self._tokens) / self.rate
            self.waited_s += wait
            self._sleep(wait)

    def settle(self, estimated: float, actual: float) -> None:
        """Correct a take by what the write really cost (more: debt; less: refund)."""
        with self._lock:
            self._refill()
            self._tokens = min(self.burst, self._tokens - (actual - estimated))

    def drain(self) -> None:
        """Wait until the bucket is out of debt (nothing spent beyond rate × elapsed)."""
        while True:
            with self._lock:
                self._refill()
                if self._tokens >= -EPSILON:
                    return
                wait = -self._tokens / self.rate
            self.waited_s += wait
            self._sleep(wait)
