"""A webhook receiver on 127.0.0.1 for tests: answers from a script, keeps every request it got."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    status: int = 204
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow receiver)


@dataclass
class Got:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """``replies`` are used in order, the last one again once they run out; ``got`` every request, in order."""

    replies: list[Reply]
    got: list[Got] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook", host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def next_reply(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@contextmanager
def receiving(*replies: Reply, certfile: str | None = None) -> Iterator[Receiver]:
    """A receiver serving on a free port of 127.0.0.1 for the block; over TLS with ``certfile`` (cert + key PEM)."""
    receiver = Receiver(replies=list(replies) or [Reply()])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            receiver.got.append(Got(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = receiver.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                return  # the sender gave up waiting (a timeout test)

        def log_message(self, format: str, *args: object) -> None:  # quiet in tests
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if certfile is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certfile)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
