"""A pass-through to DynamoDB on 127.0.0.1 that a bench puts between the web server and DynamoDB.

One base for both benches' stand-ins for a bad day at DynamoDB: ``stack.Throttle`` (bench/load.py: a marked
write answered "throttled" without being forwarded) and ``api_parts.lossy.LossyProxy`` (bench/api_check.py: a
write forwarded and done, its answer lost). A subclass says what to do with one request through two hooks:
``refuse`` (an answer of its own instead of forwarding) and ``drop`` (after forwarding: close the connection
without a word). Everything else is forwarded unchanged over a kept-alive connection per handler thread.
"""

from __future__ import annotations

import contextlib
import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})

Reply = tuple[int, list[tuple[str, str]], bytes]  # status, headers, body


class LocalServer:
    """An HTTP server on 127.0.0.1 and a free port (the benches' stand-ins), answering from its own threads."""

    server: ThreadingHTTPServer

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> str:
        """Start serving with ``handler``; the server's ``http://127.0.0.1:<port>``."""
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        """Stop at once (an idle kept-alive connection is not waited for)."""
        self.server.shutdown()
        self.server.server_close()


class PassThrough(LocalServer):
    """``url`` forwards every DynamoDB request to ``upstream``; subclasses override ``refuse`` and ``drop``."""

    # A kept-alive connection idle this long is closed, ending its handler thread (else each connection the
    # web server's pool opened would hold a thread until the run stops); above botocore's 60 s read timeout.
    IDLE_SECONDS = 70.0

    def __init__(self, upstream: str, *, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._lock = threading.Lock()
        self._local = threading.local()
        self.url = self.serve(self._handler())

    def refuse(self, operation: str, body: bytes) -> Reply | None:
        """An answer to send instead of forwarding the request; None (the default): forward it."""
        return None

    def drop(self, operation: str) -> bool:
        """After the request was forwarded (and done): True closes the connection without its answer."""
        return False

    def forward(self, path: str, body: bytes, headers: dict[str, str]) -> Reply:
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
            timeout = proxy.idle_seconds  # on the connection's socket: waiting for the next request ends then

            def handle(self) -> None:
                # botocore gave up waiting (its read timeout) and closed the connection, or a request stalled
                # past the idle timeout half-sent: nobody to answer.
                with contextlib.suppress(ConnectionError, TimeoutError):
                    super().handle()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
                refused = proxy.refuse(operation, body)
                if refused is not None:
                    self._answer(*refused)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                status, answer_headers, reply = proxy.forward(self.path, body, headers)
                if proxy.drop(operation):  # done upstream; the answer goes nowhere
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(2)
                    return
                kept = [
                    (k, v)
                    for k, v in answer_headers
                    if k.lower() not in ("content-length", "connection", "transfer-encoding")
                ]
                self._answer(status, kept, reply)

            def _answer(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
