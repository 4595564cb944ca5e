"""A webhook receiver on 127.0.0.1: it keeps every delivery it is sent and answers 500 to the first tries of each.

Each POST is kept whole (the headers, the exact bytes) with the status it was answered; a delivery
(one ``webhook-id``) is answered 500 for its first ``fail_first`` attempts, then 204 — so a sender that
retries shows its retries here, and one that changes the ``webhook-id`` between them shows that too.
Verifying the signatures is the checker's job (``standardwebhooks``), on the bytes kept here.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from load_parts.passthrough import LocalServer


@dataclass(frozen=True)
class Received:
    at: float  # time.monotonic() when it came
    headers: dict[str, str]  # names lower-cased
    body: bytes
    answered: int


class Receiver(LocalServer):
    """``url`` takes webhooks; ``received`` lists them in order of arrival."""

    def __init__(self, *, fail_first: int = 2) -> None:
        self.fail_first = fail_first
        self.received: list[Received] = []
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.url = self.serve(self._handler()) + "/hooks/tracker"

    def take(self, headers: dict[str, str], body: bytes) -> int:
        """Keep one POST; the status to answer it with."""
        with self._lock:
            message = headers.get("webhook-id", "")
            self.attempts[message] += 1
            status = 500 if self.attempts[message] <= self.fail_first else 204
            self.received.append(Received(time.monotonic(), headers, body, status))
            return status

    def delivered(self) -> set[str]:
        """The ``webhook-id`` of every delivery answered 2xx."""
        with self._lock:
            return {r.headers.get("webhook-id", "") for r in self.received if 200 <= r.answered < 300}

    def wait_for(self, count: int, timeout: float) -> bool:
        """Wait until ``count`` deliveries were answered 2xx (or ``timeout`` seconds): whether they were."""
        ends = time.monotonic() + timeout
        while time.monotonic() < ends:
            if len(self.delivered()) >= count:
                return True
            time.sleep(0.25)
        return len(self.delivered()) >= count

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle(self) -> None:
                with contextlib.suppress(ConnectionError, TimeoutError):
                    super().handle()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = receiver.take({k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
