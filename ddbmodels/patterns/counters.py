"""Numbers from an atomic counter: fast with a possible gap, or gap-free.

Both take the next value of a counter item and put an item carrying it. A counter model is any
model whose hash key is the counter's name and whose NumberAttribute ``value`` holds the last
number handed out (the counters table, ``ddbmodels.counters``, is one).

``put_numbered_atomic`` — two steps. UpdateItem ``ADD v :1`` with
``ReturnValues=UPDATED_NEW`` hands out the number (no read, no race: DynamoDB serializes the
writes of one item), then PutItem writes the item. The steps are separate requests, so when the
second fails (throttled past its retries, timed out, the process killed in between) the number
is spent and nothing carries it: a **gap**. Cost per item: 1 WCU (the counter, ≤ 1 KB) + the
item's PutItem (1 WCU per started KB, plus one entry per GSI). Throughput is bounded only by
the counter item's partition (~1,000 writes/s).

``put_numbered_gapless`` — one transaction. A strongly consistent GetItem reads the counter
(value s), then TransactWriteItems: Update counter ``SET v = s + 1`` if ``v = s``
(``attribute_not_exists(v)`` for a new counter) and Put item if ``attribute_not_exists``. Both
happen or neither does: **no gap**. Writers that read the same s race for it; DynamoDB lets one
commit and cancels the others (ConditionalCheckFailed on the counter), which re-read after a
full-jitter backoff, bounded. Cost per item: 1 RCU + 2 × (1 WCU counter + the item's WCU) + its
GSI entries once — transactions charge two units per item write (prepare and commit); an order of
≤ 1 KB with two index entries is 1 RCU + 6 WCU. DynamoDB Local charges the index entries a
transaction writes twice as well (8 WCU there; bench/orders.py prints both). Every lost race adds
one read and a cancelled transaction. A read-then-commit round trip per number on one item: throughput falls
as writers are added, where the atomic mode's rises (bench/orders.py).

Exactly once under lost answers (``token``, ``record``): the item carries the writer's random
token, and a put refused on a key that holds it was our own commit whose answer was lost
(GetItem, consistent, +1 RCU on that path only). With an idempotency ``record`` the atomic mode's
PutItem becomes TransactWriteItems [item, record] (2 × (item + record) WCU plus the item's GSI
entries: an order goes from 4 to 7 WCU, +3; DynamoDB Local 9), and the gapless transaction gains
the record's Put (+2 WCU: 8, DynamoDB Local 10). A key that already created an item raises
KeyUsed and writes nothing — except that the atomic mode has spent a counter value first: a gap.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from pynamodb.exceptions import DoesNotExist, PynamoDBException, TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from ddbmodels.core import retry
from ddbmodels.core.errors import (
    AlreadyExists,
    DomainError,
    KeyUsed,
    SequenceContention,
    is_conditional_failure,
    response_code,
)
from ddbmodels.core.exactly_once import Claimed, holds_token, lost_in_transaction, put_with_record, reason_codes

T = TypeVar("T", bound=Model)

# 16 writers on one counter: a round of k racers has one winner
BACKOFF = retry.Backoff(attempts=64, base_s=0.004, cap_s=0.25)
# Reasons a transaction is cancelled that a fresh read and another attempt can cure.
_RETRYABLE = frozenset({"ConditionalCheckFailed", "TransactionConflict"})


class GapLeft(DomainError, code="gap_left"):
    """The counter handed out a number but the item carrying it could not be written: a gap."""


def counter_next(model: type[Model], name: str) -> int:
    """UpdateItem ``ADD value :1`` ReturnValues=UPDATED_NEW — 1 WCU. The new value (1 for a new counter)."""
    value: Any = model.value  # type: ignore[attr-defined]
    data = model._get_connection().update_item(name, actions=[value.add(1)], return_values="UPDATED_NEW")
    return int(data["Attributes"][value.attr_name]["N"])


def counter_value(model: type[Model], name: str, *, consistent: bool = True) -> int:
    """GetItem — 1 RCU consistent (0.5 eventually). The last value handed out, 0 for a new counter."""
    try:
        return int(model.get(name, consistent_read=consistent).value)  # type: ignore[attr-defined]
    except DoesNotExist:
        return 0


def put_numbered_atomic(
    model: type[Model],
    counter: str,
    build: Callable[[int], T],
    *,
    token: tuple[str, str] | None = None,
    record: Callable[[T], Model] | None = None,
) -> Claimed[T]:
    """UpdateItem ADD :1 (1 WCU) + PutItem if attribute_not_exists (item WCU + GSI entries).

    ``build(number)`` returns the item to put. Raises GapLeft (with ``number``) when the put
    fails after the number was taken: that number will never be used. ``token``: a refused put
    on our own stored item (lost answer) is success (+1 RCU on that path). ``record(item)``:
    TransactWriteItems [item, record] instead (+3 WCU); KeyUsed when the key was used (a gap).
    """
    number = counter_next(model, counter)
    item = build(number)
    try:
        if record is None:
            item.save(condition=_not_exists(type(item)))
        else:
            put_with_record(item, record(item), _not_exists(type(item)))
    except KeyUsed:
        raise
    except PynamoDBException as error:
        refused = is_conditional_failure(error) or lost_in_transaction(error)
        unanswered = response_code(error) is None  # every answer lost: did it land?
        if (refused or unanswered) and token is not None and holds_token(item, token):
            return Claimed(item=item, number=number, attempts=1)  # ours: the answer was lost
        raise GapLeft(f"number {number} was taken but its item was not written", number=number) from error
    return Claimed(item=item, number=number, attempts=1)


def put_numbered_gapless(
    counter_model: type[Model],
    counter: str,
    build: Callable[[int], T],
    *,
    token: tuple[str, str] | None = None,
    record: Callable[[T], Model] | None = None,
    max_attempts: int = BACKOFF.attempts,
    rng: random.Random | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Claimed[T]:
    """GetItem consistent (1 RCU) + TransactWriteItems [Update counter if v = seen, Put item] (2× WCU each).

    ``token``: a cancelled transaction whose item is stored with our token committed (its answer
    was lost) — +1 RCU on that path. ``record(item)`` joins the transaction (+2 WCU); KeyUsed
    when the key was used (nothing written).

    A transaction cancelled by another writer re-reads and tries again after a full-jitter
    backoff; after ``max_attempts`` lost races it raises SequenceContention, having written
    nothing. Each attempt sends its own ClientRequestToken, so botocore retrying a request whose
    answer was lost cannot commit the same attempt twice.
    """
    value: Any = counter_model.value  # type: ignore[attr-defined]
    for attempt in retry.attempts(replace(BACKOFF, attempts=max_attempts), rng=rng, sleep=sleep):
        seen = counter_value(counter_model, counter, consistent=True)
        item = build(seen + 1)
        model = type(item)
        unchanged = value.does_not_exist() if seen == 0 else value == seen
        try:
            with TransactWrite(
                connection=model._get_connection().connection,
                client_request_token=uuid.uuid4().hex,
                return_consumed_capacity="TOTAL",
            ) as transaction:
                transaction.save(item, condition=_not_exists(model))
                if record is not None:
                    new = record(item)
                    transaction.save(new, condition=_not_exists(type(new)))
                transaction.update(counter_model(counter), actions=[value.set(seen + 1)], condition=unchanged)
        except TransactWriteError as error:
            codes = reason_codes(error)
            if record is not None and codes[1:2] == ["ConditionalCheckFailed"]:
                raise KeyUsed("this idempotency key already created an item") from error
            if token is not None and _maybe_ours(error) and holds_token(item, token):
                return Claimed(item=item, number=seen + 1, attempts=attempt)  # ours: the answer was lost
            if not _lost_race(error, counter_model, counter, seen, counter_at=2 if record is not None else 1):
                raise
            continue  # full-jitter backoff, then a fresh read
        return Claimed(item=item, number=seen + 1, attempts=attempt)
    raise SequenceContention(f"gave up after {max_attempts} attempts", counter=counter, attempts=max_attempts)


def _maybe_ours(error: TransactWriteError) -> bool:
    """Could the item this attempt tried to put be stored already, by this very attempt? (Then GetItem it.)

    Only when every answer was lost (no code: did it land?), or when the item's own Put was refused
    or in conflict (reason 0; no reasons at all for a TransactionConflictException): our stored item
    fails its ``attribute_not_exists``. A race lost on the counter alone (the item's reason ``None``)
    cannot be our own commit — the item's key did not exist — so it costs no read beyond the
    counter's next one: one consistent GetItem per lost race, not two.
    """
    if response_code(error) is None:
        return True
    if not lost_in_transaction(error):
        return False
    codes = reason_codes(error)
    return not codes or codes[0] != "None"


def _not_exists(model: type[Model]) -> Condition:
    """``attribute_not_exists(<hash key>)``: no item with this full key exists yet."""
    return model.get_attributes()[model._hash_keyname].does_not_exist()  # type: ignore[index]


def _lost_race(
    error: TransactWriteError, counter_model: type[Model], counter: str, seen: int, *, counter_at: int = 1
) -> bool:
    """True when the transaction was cancelled because another writer got there first.

    PynamoDB sends puts before updates: reason 0 is the item's Put, reason ``counter_at`` the
    counter's Update (2 when an idempotency record's Put comes between). A refused Put is a lost
    race too when the winner took the same number for the same key (same customer, same
    millisecond); only when the counter has not moved is the key taken by something else:
    AlreadyExists.
    """
    if response_code(error) == "TransactionConflictException":
        return True
    if response_code(error) != "TransactionCanceledException":
        return False
    codes = [reason.code if reason is not None else "None" for reason in error.cancellation_reasons]
    if any(code not in _RETRYABLE | {"None"} for code in codes):
        return False  # throttled, validation, …: not ours to retry (botocore already retried throttles)
    if "TransactionConflict" in codes or codes[counter_at : counter_at + 1] == ["ConditionalCheckFailed"]:
        return True
    if codes[:1] == ["ConditionalCheckFailed"] and counter_value(counter_model, counter) == seen:
        raise AlreadyExists("an item with this key already exists", counter=counter, number=seen + 1) from error
    return True
