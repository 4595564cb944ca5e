"""Numbers from a sort-key sequence: the next number is one more than the largest sort key.

The pattern: a strongly consistent Query of the item collection,
sort key descending, ``Limit 1`` reads the current maximum; a PutItem conditioned on
``attribute_not_exists(<sort key>)`` claims max + 1. Two writers that read the same maximum
both try the same number; DynamoDB lets exactly one win, the loser re-reads and tries again.

Cost per number, without contention: 1 RCU (consistent read of one item ≤ 4 KB) + 1 WCU per
started KB of the new item. Each lost race costs one more read and one more (charged, failed)
write. Numbers are unique and gap-free as long as nothing is ever deleted from the collection:
deleting the top item would let the max-read hand its number out again, so callers tombstone.

Exactly once under lost answers: the request reaches DynamoDB, the item is stored, the answer is
lost and botocore sends the PutItem again — which now fails its condition on our own item. So
the item carries the writer's random token (``token``), and on a refused put the writer reads
the number it tried (GetItem, consistent, 1 RCU, on that path only): its own token means the
first try committed. With ``record`` (an idempotency record, see ``ddbmodels.idempotency``) the
put is a TransactWriteItems of the item and the record, each ``attribute_not_exists``, with a
ClientRequestToken: a second submission of the same key is cancelled on the record and raises
KeyUsed (nothing written). That is 2 × (item + record) WCU: +3 WCU for a ≤ 1 KB item.
``extras`` (raw items derived from the new one, such as its label entries) join the
same transaction, unconditionally: 2 WCU more per extra item ≤ 1 KB.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pynamodb.exceptions import PutError, TransactWriteError
from pynamodb.models import Model

from ddbmodels.core import retry
from ddbmodels.core.errors import SequenceContention, is_conditional_failure, response_code
from ddbmodels.core.exactly_once import Claimed, holds_token, lost_in_transaction, put_with_record, reason_codes

T = TypeVar("T", bound=Model)

# Re-exported: the numbering patterns' result and their exactly-once pieces live in core.exactly_once.
__all__ = [
    "BACKOFF",
    "Claimed",
    "holds_token",
    "latest_sort_key",
    "lost_in_transaction",
    "put_next",
    "put_with_record",
    "reason_codes",
]

# 16 writers on one project: 12 attempts was seen to give up 1–3% of the time
BACKOFF = retry.Backoff(attempts=32, base_s=0.004, cap_s=0.25)


def latest_sort_key(model: type[Model], hash_key: object) -> int | None:
    """Query PK=hash_key, SK descending, Limit 1, consistent read — 1 RCU (top item ≤ 4 KB).

    Returns the largest numeric sort key in the collection, or None if it is empty.
    """
    range_name = model._range_keyname
    assert range_name is not None, f"{model.__name__} has no sort key"
    results = model.query(
        hash_key,
        scan_index_forward=False,
        limit=1,
        consistent_read=True,
        attributes_to_get=[model.get_attributes()[range_name].attr_name],
    )
    for item in results:
        return int(getattr(item, range_name))
    return None


def _failed_check(error: Exception, count: int) -> tuple[int, Any] | None:
    """(index, reason) of the first of ``count`` leading ConditionChecks that failed, or None."""
    if not count or not isinstance(error, TransactWriteError) or response_code(error) != "TransactionCanceledException":
        return None
    for index, reason in enumerate(error.cancellation_reasons[:count]):
        if reason is not None and reason.code == "ConditionalCheckFailed":
            return index, reason
    return None


def put_next(
    model: type[T],
    hash_key: object,
    build: Callable[[int | None], T],
    *,
    token: tuple[str, str] | None = None,
    record: Callable[[T], Model] | None = None,
    extras: Callable[[T], list[dict[str, Any]]] | None = None,
    checks: Sequence[dict[str, Any]] = (),
    check_failed: Callable[[int, Any], Exception] | None = None,
    max_attempts: int = BACKOFF.attempts,
    rng: random.Random | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Claimed[T]:
    """Query max SK (1 RCU, consistent) + PutItem if attribute_not_exists(SK) (≥ 1 WCU), retried.

    ``build(last)`` receives the current largest sort key (None for an empty collection) and
    returns the item to put; it may raise to refuse (for example when the collection's static
    item is missing). A lost race re-reads after a full-jitter exponential backoff; after
    ``max_attempts`` lost races it raises SequenceContention and has written nothing.

    ``token`` = (attribute name, value) the built item carries: a refused put whose number holds
    that token was our own (its answer lost) — +1 RCU per refused put; so was a put none of whose
    answers came back, when the item holds it (checked the same way before giving up). ``record(item)`` makes it
    TransactWriteItems [Put item, Put record] — 2 × (item + record) WCU — and raises KeyUsed
    when the record already exists. ``extras(item)`` puts more items in that transaction. ``checks`` are raw
    ConditionChecks of other items put first in the transaction (2 WCU per KB of each checked item): one that
    fails raises ``check_failed(its index, its cancellation reason)`` (default: the transaction's error), never
    retried as a lost race.
    """
    range_name = model._range_keyname
    assert range_name is not None, f"{model.__name__} has no sort key"
    range_attr = model.get_attributes()[range_name]
    for attempt in retry.attempts(replace(BACKOFF, attempts=max_attempts), rng=rng, sleep=sleep):
        last = latest_sort_key(model, hash_key)
        item = build(last)
        number = int(getattr(item, range_name))
        try:
            more = extras(item) if extras is not None else []
            if record is None and not more and not checks:
                item.save(condition=range_attr.does_not_exist())
            else:
                put_with_record(item, record(item) if record else None, range_attr.does_not_exist(), more, [*checks])
        except (PutError, TransactWriteError) as error:
            failed = _failed_check(error, len(checks))
            if failed is not None:
                raise (check_failed(*failed) if check_failed else error) from error
            refused = is_conditional_failure(error) or lost_in_transaction(error)
            unanswered = response_code(error) is None  # every answer lost: did it land?
            if (refused or unanswered) and token is not None and holds_token(item, token):
                return Claimed(item=item, number=number, attempts=attempt)  # ours: the answer was lost
            if not refused:
                raise
            continue  # lost the race: full-jitter backoff, then re-read the largest sort key
        return Claimed(item=item, number=number, attempts=attempt)
    raise SequenceContention(f"gave up after {max_attempts} attempts", hash_key=hash_key, attempts=max_attempts)
