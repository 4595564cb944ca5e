"""Writes that happen exactly once under lost answers, shared by the numbering patterns.

A request reaches DynamoDB, the item is stored, the answer is lost and botocore sends the write
again — which now fails its condition on our own item. So the item carries the writer's random
token, and on a refused write ``holds_token`` reads the key (GetItem, consistent, 1 RCU, on that
path only): its own token means the first try committed. ``put_with_record`` is the
TransactWriteItems of an item, its idempotency record and derived extras, with a
ClientRequestToken; ``lost_in_transaction`` and ``reason_codes`` read why a transaction was
cancelled. ``Claimed`` is what a numbering pattern (``patterns.sequences``, ``patterns.counters``)
hands back.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.models import Model

from ddbmodels.core.errors import KeyUsed, response_code
from ddbmodels.core.transactions import RawTransactWrite

T = TypeVar("T", bound=Model)


@dataclass(frozen=True)
class Claimed(Generic[T]):
    """The item that won its number, and what it took to get there."""

    item: T
    number: int
    attempts: int
    replayed: bool = False  # an earlier call with the same idempotency key made it: nothing was written

    @property
    def conflicts(self) -> int:
        return self.attempts - 1


def put_with_record(
    item: Model,
    record: Model | None,
    condition: object,
    extras: list[dict[str, Any]] | None = None,
    checks: list[dict[str, Any]] | None = None,
) -> None:
    """TransactWriteItems [each check, Put item if condition, Put record if new, Put each extra] with a fresh
    ClientRequestToken.

    ``extras`` are raw puts (``core.transactions.raw_put``: a table name and DynamoDB JSON); ``checks`` raw
    ConditionChecks of other items (``RawTransactWrite.check_raw``), first in the transaction's reasons.

    Raises KeyUsed when the record's key is taken (whatever happened to the item's put).
    """
    try:
        with RawTransactWrite(
            connection=type(item)._get_connection().connection,
            client_request_token=uuid.uuid4().hex,
            return_consumed_capacity="TOTAL",
        ) as transaction:
            for check in checks or ():
                transaction.check_raw(check)
            transaction.save(item, condition=condition)  # type: ignore[arg-type]
            if record is not None:
                record_hash = type(record).get_attributes()[type(record)._hash_keyname]  # type: ignore[index]
                transaction.save(record, condition=record_hash.does_not_exist())
            for extra in extras or ():
                transaction.put_raw(extra["TableName"], extra["Item"])
    except TransactWriteError as error:
        at = len(checks or ()) + 1  # the record's place: the checks, then the item
        if record is not None and reason_codes(error)[at : at + 1] == ["ConditionalCheckFailed"]:
            raise KeyUsed("this idempotency key already created an item") from error
        raise


def reason_codes(error: TransactWriteError) -> list[str]:
    if response_code(error) != "TransactionCanceledException":
        return []
    return [reason.code if reason is not None else "None" for reason in error.cancellation_reasons]


def lost_in_transaction(error: Exception) -> bool:
    """A transaction cancelled because the item's number was taken (or a concurrent transaction)."""
    if not isinstance(error, TransactWriteError):
        return False
    if response_code(error) == "TransactionConflictException":
        return True
    codes = reason_codes(error)
    return bool(codes) and set(codes) <= {"ConditionalCheckFailed", "TransactionConflict", "None"}


def holds_token(item: Model, token: tuple[str, str]) -> bool:
    """GetItem of the item's key, consistent — 1 RCU: does the stored item carry our token?"""
    model = type(item)
    name, value = token
    range_name = model._range_keyname
    hash_value = getattr(item, model._hash_keyname)  # type: ignore[arg-type]
    range_value = getattr(item, range_name) if range_name else None
    try:
        stored = model.get(hash_value, range_value, consistent_read=True)
    except DoesNotExist:
        return False
    return getattr(stored, name, None) == value
