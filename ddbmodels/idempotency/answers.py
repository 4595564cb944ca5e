"""Kept answers: for a POST that creates nothing keyed (the inbox marked read, a delivery sent again), the
first answer under its idempotency key, so the same key again is answered the same, without running it twice.

    a record of ``idempotency_keys`` (``model``): k = "<team>#<kind>#<key>", q = "answer", h = the request's
    fingerprint, r = JSON {"status": <HTTP status>, "body": "<the answer's JSON text>"} (≤ ``ANSWER_MAX``)

Not written in the operation's transaction, and it needs not be: the operations that keep answers are
naturally idempotent (marking read twice leaves it read), so a process that stops between the operation and
``answer_put`` leaves a key that runs the operation again: harmless. Creates keep their record in their own
transaction instead (``new_record``). Records expire with the others (``RETENTION``) and leave with the team
(``idempotency.team``: they are in ``by_tenant``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pynamodb.exceptions import DoesNotExist, PutError

from ddbmodels.core import capacity
from ddbmodels.core.errors import is_conditional_failure
from ddbmodels.idempotency.model import CreationRecord, new_record, record_pk

ANSWER = "answer"  # ``q`` of a kept answer (a create's record holds its request's random token there)
ANSWER_MAX = 1024  # bytes of ``r``: a record ≤ 1 KB is 1 WCU


@dataclass(frozen=True)
class Answer:
    """The first answer given under a key: its status, its body as sent (JSON text) and its request's fingerprint."""

    status: int
    body: str
    fingerprint: str | None


@capacity.access_pattern("idempotency.answer_put")
def answer_put(*, tenant: str, kind: str, key: str, status: int, body: str, fingerprint: str) -> bool:
    """PutItem if attribute_not_exists(k) — 1 WCU (a record ≤ 1 KB) + 1 WCU for its ``by_tenant`` entry.

    Keeps the answer of the first call under ``key``; False (and nothing written, the first kept) when another
    call kept one meanwhile (a race of two calls without the in-flight lock: both ran, naturally idempotent).
    ValueError for an answer over ``ANSWER_MAX`` bytes: kept answers are small (a count, an accepted delivery).
    """
    result = json.dumps({"status": status, "body": body}, separators=(",", ":"))
    if len(result.encode()) > ANSWER_MAX:
        raise ValueError(f"a kept answer holds at most {ANSWER_MAX} bytes; this one has {len(result.encode())}")
    record = new_record(tenant=tenant, kind=kind, key=key, result=result, request=ANSWER, fingerprint=fingerprint)
    try:
        record.save(condition=CreationRecord.key.does_not_exist())
    except PutError as error:
        if is_conditional_failure(error):
            return False
        raise
    return True


@capacity.access_pattern("idempotency.answer_get")
def answer_get(*, tenant: str, kind: str, key: str) -> Answer | None:
    """GetItem, consistent — 1 RCU. The answer kept under ``key``, None when none was (or it expired)."""
    try:
        record = CreationRecord.get(record_pk(tenant, kind, key), consistent_read=True)
    except DoesNotExist:
        return None
    if record.request != ANSWER:  # a create's record under this kind: never written by kept answers' kinds
        return None
    kept = json.loads(record.result)
    return Answer(status=int(kept["status"]), body=str(kept["body"]), fingerprint=record.fingerprint)
