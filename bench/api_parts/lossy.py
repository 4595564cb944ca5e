"""A pass-through to DynamoDB that loses answers: the write is done, its answer never comes back.

The web server talks to DynamoDB through it. While ``loss`` is above 0, that share of the writes
(``PutItem``, ``UpdateItem``, ``DeleteItem``, ``TransactWriteItems``, ``BatchWriteItem``) is forwarded,
DynamoDB applies it, and the proxy then closes the connection without a word: botocore sees the
connection drop (``ConnectionClosedError``) and tries again — the write it retries was done — exactly as
a response lost on the network. Reads always pass. The decisions come from a seeded ``random.Random``, so
a run is repeatable up to thread timing. Counted: writes seen, answers lost.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
IDLE_SECONDS = 70.0  # a kept-alive connection idle this long is closed (above botocore's 60 s read timeout)


class LossyProxy:
    """``url`` forwards to ``upstream``; ``loss`` (0..1, settable at any time) of the writes lose their answer."""

    def __init__(self, upstream: str, *, seed: int = 22, loss: float = 0.0) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.loss = loss
        self.writes = 0
        self.lost = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._local = threading.local()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def lose_this(self, operation: str) -> bool:
        """Whether this request's answer is lost (a write, with probability ``loss``); counts the writes."""
        if operation not in WRITES:
            return False
        with self._lock:
            self.writes += 1
            lose = self.loss > 0 and self._rng.random() < self.loss
            self.lost += lose
            return lose

    def forward(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        for attempt in range(2):  # a kept-alive connection the upstream closed: open a new one once
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = http.client.HTTPConnection(*self.upstream, timeout=60)
            try:
                conn.request("POST", path, body, headers)
                answer = conn.getresponse()
                return answer.status, answer.getheaders(), answer.read()
            except (http.client.HTTPException, OSError):
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = IDLE_SECONDS

            def handle(self) -> None:
                with contextlib.suppress(ConnectionError, TimeoutError):
                    super().handle()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                status, answer_headers, reply = proxy.forward(self.path, body, headers)
                if proxy.lose_this(operation):  # done upstream; the answer goes nowhere
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(2)
                    return
                self.send_response(status)
                for name, value in answer_headers:
                    if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
