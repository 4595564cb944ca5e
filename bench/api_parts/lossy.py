"""A pass-through to DynamoDB that loses answers: the write is done, its answer never comes back.

The web server talks to DynamoDB through it. While ``loss`` is above 0, that share of the writes
(``PutItem``, ``UpdateItem``, ``DeleteItem``, ``TransactWriteItems``, ``BatchWriteItem``) is forwarded,
DynamoDB applies it, and the proxy then closes the connection without a word: botocore sees the
connection drop (``ConnectionClosedError``) and tries again — the write it retries was done — exactly as
a response lost on the network. Reads always pass. The decisions come from a seeded ``random.Random``, so
a run is repeatable up to thread timing. Counted: writes seen, answers lost. With ``reads`` set, the reads'
answers (``GetItem``, ``Query``, …) are lost too, a quarter as often: a write whose answer was lost, then the read
that would have found it done lost as well, is the client's 503 for a change that was made (``--lose-reads``, with
botocore held to one attempt by ``--dynamodb-attempts 1``: the case of a create whose replay must still be
recorded). The forwarding itself is ``load_parts.passthrough``'s, as bench/load.py's throttle.
"""

from __future__ import annotations

import random

from load_parts.passthrough import WRITES, PassThrough

READ_SHARE = 0.25  # with ``reads``: a read loses its answer a quarter as often as a write (7.5 % at 30 %)


class LossyProxy(PassThrough):
    """``url`` forwards to ``upstream``; ``loss`` (0..1, settable at any time) of the writes lose their answer."""

    def __init__(self, upstream: str, *, seed: int = 22, loss: float = 0.0) -> None:
        self.loss = loss
        self.reads = False  # True: reads lose their answers too (never counted as writes)
        self.writes = 0
        self.lost = 0
        self._rng = random.Random(seed)
        super().__init__(upstream)

    def drop(self, operation: str) -> bool:
        """Whether this request's answer is lost (a write, with probability ``loss``); counts the writes."""
        if operation not in WRITES:
            if not self.reads:
                return False
            with self._lock:
                lose = self.loss > 0 and self._rng.random() < self.loss * READ_SHARE
                self.lost += lose
                return lose
        with self._lock:
            self.writes += 1
            lose = self.loss > 0 and self._rng.random() < self.loss
            self.lost += lose
            return lose
