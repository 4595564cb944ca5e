"""DynamoDB refusing chosen calls at botocore's level, so everything above it runs for real.

A handler of botocore's ``before-call.dynamodb`` event, registered in every botocore session (as
ddbmodels' capacity meter is: PynamoDB's sessions and ``ddbmodels.core.connection.client()``),
answers a matching call with DynamoDB's own error answer instead of sending it. botocore then
raises the ClientError DynamoDB would have caused, PynamoDB wraps it (PutError, UpdateError,
TransactWriteError …) and ddbmodels, the services and the views handle it as in production.
A "writes nothing" test arms a refusal, makes its request, then reads DynamoDB to prove it.
With nothing armed the handler does nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from botocore import handlers
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders


@dataclass
class Refusal:
    """Refuse ``operation`` on ``table`` (any table when None) with ``code``; ``times`` calls (None: all)."""

    operation: str
    table: str | None = None
    code: str = "InternalServerError"
    status: int = 500
    times: int | None = None
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
            return AWSResponse("http://dynamodb.test", refusal.status, HTTPHeaders(), None), parsed
    return None


_HOOK = ("before-call.dynamodb", _before_call)
if _HOOK not in handlers.BUILTIN_HANDLERS:
    # Every botocore session created from now on registers the hook (PynamoDB makes its own).
    handlers.BUILTIN_HANDLERS.append(_HOOK)
