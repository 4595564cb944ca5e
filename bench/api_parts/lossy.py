"""A pass-through to DynamoDB that loses answers: the write is done, its answer never comes back.

The web server talks to DynamoDB through it. While ``loss`` is above 0, that share of the writes
(``PutItem``, ``UpdateItem``, ``DeleteItem``, ``TransactWriteItems``, ``BatchWriteItem``) is forwarded,
DynamoDB applies it, and the proxy then closes the connection without a word: botocore sees the
connection drop (``ConnectionClosedError``) and tries again — the write it retries was done — exactly as
a response lost on the network. Reads always pass. The decisions come from a seeded ``random.Random``, so
a run is repeatable up to thread timing. Counted: writes seen, answers lost. The forwarding itself is
``load_parts.passthrough``'s, as bench/load.py's throttle.
"""

from __future__ import annotations

import random

from load_parts.passthrough import WRITES, PassThrough


class LossyProxy(PassThrough):
    """``url`` forwards to ``upstream``; ``loss`` (0..1, settable at any time) of the writes lose their answer."""

    def __init__(self, upstream: str, *, seed: int = 22, loss: float = 0.0) -> None:
        self.loss = loss
        self.writes = 0
        self.lost = 0
        self._rng = random.Random(seed)
        super().__init__(upstream)

    def drop(self, operation: str) -> bool:
        """Whether this request's answer is lost (a write, with probability ``loss``); counts the writes."""
        if operation not in WRITES:
            return False
        with self._lock:
            self.writes += 1
            lose = self.loss > 0 and self._rng.random() < self.loss
            self.lost += lose
            return lose
