"""DynamoDB refusing chosen calls at botocore's level, so everything above it runs for real.

A handler of botocore's ``before-call.dynamodb`` event, registered in every botocore session (as
ddbmodels' capacity meter is: PynamoDB's sessions and ``ddbmodels.core.connection.client()``),
answers a matching call with DynamoDB's own error answer instead of sending it. botocore then
raises the ClientError DynamoDB would have caused, PynamoDB wraps it (PutError, UpdateError,
TransactWriteError …) and ddbmodels, the services and the views handle it as in production.
A "writes nothing" test arms a refusal, makes its request, then reads DynamoDB to prove it.
With nothing armed the handler does nothing.

Lost answers (``LostAnswers``): a handler of ``before-send.dynamodb`` sends a chosen request to
DynamoDB Local itself (127.0.0.1 only), so DynamoDB does the work, then raises botocore's
ConnectionClosedError as if the connection dropped before the answer came back. botocore
retries the same request as it would against AWS — the case where a write that succeeded
looks like one that failed. A seeded random draw decides which requests lose their answer.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import urllib3
from botocore import handlers
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders
from botocore.exceptions import ConnectionClosedError

WRITES = frozenset({"PutItem", "UpdateItem", "TransactWriteItems", "DeleteItem"})  # what loses answers


@dataclass
class Refusal:
    """Refuse ``operation`` on ``table`` (any table when None) with ``code``; ``times`` calls (None: all)."""

    operation: str
    table: str | None = None
    code: str = "InternalServerError"
    status: int = 500
    times: int | None = None
    # A cancelled transaction's reason per item, as DynamoDB sends them ("ConditionalCheckFailed", "None", …)
    reasons: list[str] | None = None
    refused: list[str] = field(default_factory=list)  # the tables of each call refused so far

    def matches(self, operation: str, tables: set[str]) -> bool:
        if operation != self.operation or (self.times is not None and len(self.refused) >= self.times):
            return False
        return self.table is None or self.table in tables


_armed: list[Refusal] = []


def arm(refusal: Refusal) -> Refusal:
    _armed.append(refusal)
    return refusal


def disarm_all() -> None:
    _armed.clear()
    _losing.clear()


@dataclass
class LostAnswers:
    """Lose the answer of ``rate`` of the ``operations`` sent (after DynamoDB did the work), ``limit`` at most."""

    operations: frozenset[str]
    rate: float = 0.3
    seed: int = 0
    limit: int = 10_000
    sent: int = 0
    lost: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def draw(self, operation: str) -> bool:
        """True when this request's answer is to be lost (counted)."""
        if operation not in self.operations:
            return False
        with self._lock:
            self.sent += 1
            if self.lost >= self.limit or self._rng.random() >= self.rate:
                return False
            self.lost += 1
            return True


_losing: list[LostAnswers] = []
_pool = urllib3.PoolManager(maxsize=64, retries=False, timeout=urllib3.Timeout(connect=2, read=20))


def lose(answers: LostAnswers) -> LostAnswers:
    _losing.append(answers)
    return answers


def _before_send(*, request: Any, event_name: str, **_: Any) -> None:
    if not _losing:
        return
    operation = event_name.rsplit(".", 1)[-1]
    if not any(answers.draw(operation) for answers in _losing):
        return
    host = urlsplit(request.url).hostname
    assert host in ("127.0.0.1", "localhost"), f"lost answers are for DynamoDB Local only, not {host}"
    body = request.body if isinstance(request.body, bytes | None) else request.body.read()
    _pool.urlopen(request.method, request.url, body=body, headers=dict(request.headers)).release_conn()
    raise ConnectionClosedError(endpoint_url=request.url)  # DynamoDB did it; the answer never arrives


def _tables(body: dict[str, Any]) -> set[str]:
    """The tables a request names: its TableName, or those of a transaction's or a batch's items."""
    names = {body["TableName"]} if "TableName" in body else set()
    for entry in body.get("TransactItems", []):
        names.update(action["TableName"] for action in entry.values())
    names.update(body.get("RequestItems", {}))
    return names


def _before_call(*, model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
    if not _armed:
        return None
    raw = params.get("body") or b"{}"
    tables = _tables(json.loads(raw))
    for refusal in list(_armed):
        if refusal.matches(model.name, tables):
            refusal.refused.append(", ".join(sorted(tables)))
            message = f"refused by the test ({refusal.code})"
            parsed = {
                "Error": {"Code": refusal.code, "Message": message},
                "ResponseMetadata": {"HTTPStatusCode": refusal.status, "RetryAttempts": 0},
            }
            if refusal.reasons is not None:
                parsed["CancellationReasons"] = [{"Code": code} for code in refusal.reasons]
            return AWSResponse("http://dynamodb.test", refusal.status, HTTPHeaders(), None), parsed
    return None


_HOOKS = [("before-call.dynamodb", _before_call), ("before-send.dynamodb", _before_send)]
for _hook in _HOOKS:
    if _hook not in handlers.BUILTIN_HANDLERS:
        # Every botocore session created from now on registers the hook (PynamoDB makes its own).
        handlers.BUILTIN_HANDLERS.append(_hook)
