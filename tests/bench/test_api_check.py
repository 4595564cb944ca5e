"""bench/api_check.py: its parts catch what they must (a lost answer is a done write, a receiver's 500s), and its
quick run — its own web server, worker and Redis, the session's DynamoDB Local — holds every check of issue 22."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from devtools import services

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPT = BENCH / "api_check.py"


@pytest.fixture(scope="module")
def parts() -> Iterator[None]:
    sys.path.insert(0, str(BENCH))  # as when run as a script: api_parts is beside it
    yield
    sys.path.remove(str(BENCH))


class Upstream(BaseHTTPRequestHandler):
    """A stand-in for DynamoDB: counts what it was sent, answers 200 with the operation's name."""

    done: list[str] = []  # shared by the handler's instances on purpose

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
        Upstream.done.append(operation)
        reply = json.dumps({"did": operation}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


def send(url: str, operation: str) -> int | str:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("POST", "/", b"{}", {"X-Amz-Target": f"DynamoDB_20120810.{operation}"})
        return conn.getresponse().status
    except (http.client.HTTPException, OSError) as error:
        return type(error).__name__
    finally:
        conn.close()


def test_the_lossy_proxy_does_the_write_and_loses_its_answer_reads_always_answered(parts: None) -> None:
    from api_parts.lossy import LossyProxy

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    proxy = LossyProxy(f"http://127.0.0.1:{upstream.server_address[1]}", loss=1.0)
    try:
        Upstream.done.clear()
        assert send(proxy.url, "PutItem") != 200  # the connection closed without an answer
        assert send(proxy.url, "GetItem") == 200
        assert Upstream.done == ["PutItem", "GetItem"]  # the write was done all the same
        assert (proxy.writes, proxy.lost) == (1, 1)
        proxy.loss = 0.0
        assert send(proxy.url, "UpdateItem") == 200
        assert (proxy.writes, proxy.lost) == (2, 1)
        proxy.loss, proxy.reads = 1.0, True  # --lose-reads: a read's answer lost too (a quarter as often)
        lost_reads = [send(proxy.url, "GetItem") != 200 for _ in range(40)]
        assert 0 < sum(lost_reads) < 40
        assert (proxy.writes, proxy.lost) == (2, 1 + sum(lost_reads))  # reads are not counted as writes
    finally:
        proxy.stop()
        upstream.shutdown()
        upstream.server_close()


def test_the_receiver_answers_500_to_each_deliverys_first_tries_then_204(parts: None) -> None:
    from api_parts.receiver import Receiver

    receiver = Receiver(fail_first=2)
    host, _, rest = receiver.url.removeprefix("http://").partition(":")
    port, _, path = rest.partition("/")
    try:
        answers = []
        for message in ("msg_a", "msg_a", "msg_b", "msg_a"):
            conn = http.client.HTTPConnection(host, int(port), timeout=5)
            conn.request("POST", f"/{path}", b'{"type":"issue.created"}', {"webhook-id": message})
            answers.append(conn.getresponse().status)
            conn.close()
        assert answers == [500, 500, 500, 204]
        assert receiver.delivered() == {"msg_a"}
        assert [r.body for r in receiver.received][:1] == [b'{"type":"issue.created"}']
    finally:
        receiver.stop()


@pytest.mark.slow
def test_the_quick_run_holds_every_check_and_reports_its_figures(
    dynamodb_local: services.Service, tmp_path: Path
) -> None:
    own = ("DJANGO_", "REDIS_", "CELERY_", "API_", "WEBHOOK_")  # the run sets its own
    env = {k: v for k, v in os.environ.items() if not k.startswith(own)}
    env.update({"DYNAMODB_ENDPOINT_URL": dynamodb_local.url, "DYNAMODB_TABLE_PREFIX": "test-api-check-"})
    command = [sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path), "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True
    checks = summary["checks"]
    assert [name for name, found in checks.items() if not found["ok"]] == []
    assert len(checks) == 9  # a check that did not run proves nothing
    pages = checks["list pages at one request"]
    assert (pages["pages"], pages["requests_per_page"]) == (5, [1])  # 120 issues at 25 a page, one request each
    assert checks["creates under 30% lost answers"]["answers_lost"] > 0  # the loss happened
    hooks = checks["webhooks signed, retried, logged"]
    assert (hooks["deliveries"], hooks["attempts"], hooks["retries"]) == (1, 3, 2)
    every = checks["every operation answered"]
    assert every["operations"] >= 32  # the API's operations, from its OpenAPI document
    assert (every["measured"], every["rounds"]) == (every["operations"], 3)  # each called, 3 times in the tour
    rows = {row["operation"]: row for row in summary["latency"]}  # one row per operation: requests, p50, p99
    assert len(rows) == every["operations"] + 1  # and GET /openapi.json
    rows.pop("GET /openapi.json")
    thin = [name for name, row in rows.items() if row["requests"] < 3 or not row["p99_ms"] >= row["p50_ms"] > 0]
    assert thin == []
    assert rows["POST /teams/{team}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver"]["statuses"] == {"202": 3}
