"""Writing orders: placed with a global number from the orders counter, moved along their workflow.

Placing an order takes the next value of the ``orders`` counter in one of two modes
(``patterns.counters``): ``atomic`` (UpdateItem ADD, then PutItem — a failed put leaves a gap)
or ``gapless`` (read, then one transaction — no gap, twice the write units, retries under
contention). A status change is an UpdateItem conditioned on the status it leaves.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from pynamodb.exceptions import UpdateError

from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidTransition, KeyUsed, is_conditional_failure
from ddbmodels.core.keys import TENANT_SLUG_RE, utcnow
from ddbmodels.counters import ORDERS_COUNTER, CounterItem
from ddbmodels.idempotency import CreationRecord, check_fingerprint, check_unused, new_record, record_get
from ddbmodels.orders.model import (
    DEFAULT_SHARDS,
    DELIVERY_METHODS,
    NUMBERING_MODES,
    PRODUCTS,
    TRANSITIONS,
    OrderItem,
    order_sort_key,
    shard_key,
)
from ddbmodels.patterns.counters import put_numbered_atomic, put_numbered_gapless
from ddbmodels.patterns.sequences import Claimed


def validate_order(*, customer: str, product: str, quantity: int, delivery: str) -> None:
    """ValueError unless the order makes sense (forms check the same rules with friendlier words)."""
    if not TENANT_SLUG_RE.match(customer):
        raise ValueError(f"invalid customer {customer!r}")
    if product not in PRODUCTS:
        raise ValueError(f"unknown product {product!r}")
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise ValueError(f"quantity must be an integer, got {quantity!r}")
    if not 1 <= quantity <= PRODUCTS[product].max_quantity:
        raise ValueError(f"quantity of {product} must be 1 to {PRODUCTS[product].max_quantity}, got {quantity}")
    if delivery not in DELIVERY_METHODS:
        raise ValueError(f"unknown delivery method {delivery!r}")


@capacity.access_pattern("orders.place")
def order_place(
    *,
    customer: str,
    product: str,
    quantity: int,
    delivery: str,
    placed_by: str,
    mode: str = "atomic",
    shards: int = DEFAULT_SHARDS,
    when: datetime | None = None,
    counter: str = ORDERS_COUNTER,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
) -> Claimed[OrderItem]:
    """Take the next order number and put the order — cost by mode (order ≤ 1 KB, 2 GSI entries):

    atomic: UpdateItem ADD (1 WCU) + PutItem (1 WCU + 2 × 1 WCU GSI) = 4 WCU, 0 RCU; GapLeft if the
    put fails. gapless: GetItem consistent (1 RCU) + TransactWriteItems (2 × (1 + 1) WCU + the two
    GSI entries, 1 WCU each = 6 WCU; DynamoDB Local charges transactional index entries twice: 8);
    each lost race adds 1 RCU and a cancelled transaction; SequenceContention when
    every attempt lost. ``when`` (aware UTC, default now) is the placement time; ``counter``
    names the counter item (tests and benchmarks use their own).

    Exactly once: the order carries this call's random token, so a put refused on our own stored
    order (botocore retried after a lost answer) is success (+1 RCU, on that path only). With
    ``idempotency_key`` the key's record is written with the order, in one transaction: atomic
    4 → 7 WCU (+3; DynamoDB Local 9), gapless 6 → 8 WCU (+2; DynamoDB Local 10). A key that already
    placed an order returns that order, ``replayed`` (2 consistent GetItems, 2 RCU), writing
    nothing — in atomic mode after the counter handed out a number: a gap. ``fingerprint`` (the API's request
    fingerprint) is kept on the record; the same key with another fingerprint raises KeyReused, nothing written.
    """
    validate_order(customer=customer, product=product, quantity=quantity, delivery=delivery)
    if mode not in NUMBERING_MODES:
        raise ValueError(f"numbering mode must be one of {', '.join(NUMBERING_MODES)}, got {mode!r}")

    def build(number: int) -> OrderItem:
        at = when or utcnow()
        return OrderItem(
            customer=customer,
            placed=order_sort_key(at, number),
            number=number,
            time_shard=shard_key(number, shards),
            product=product,
            quantity=quantity,
            delivery=delivery,
            status="pending",
            placed_by=placed_by,
            updated_at=at,
            request=request,
        )

    request = uuid.uuid4().hex

    def record(order: OrderItem) -> CreationRecord:
        assert idempotency_key is not None
        return new_record(
            tenant=customer,
            kind="order",
            key=idempotency_key,
            result=order.placed,
            request=request,
            fingerprint=fingerprint,
        )

    kwargs = {"token": ("request", request), "record": record if idempotency_key else None}
    try:
        if idempotency_key:
            check_unused(tenant=customer, kind="order", key=idempotency_key)  # a form sent before the upgrade
        if mode == "gapless":
            return put_numbered_gapless(CounterItem, counter, build, **kwargs)  # type: ignore[arg-type]
        return put_numbered_atomic(CounterItem, counter, build, **kwargs)  # type: ignore[arg-type]
    except KeyUsed:
        assert idempotency_key is not None
        found = record_get(tenant=customer, kind="order", key=idempotency_key)
        return _replayed(customer, found, request, fingerprint)


@capacity.access_pattern("orders.replay")
def order_replay(*, customer: str, idempotency_key: str, fingerprint: str | None = None) -> Claimed[OrderItem] | None:
    """GetItem the key's record, consistent — 1 RCU; when there is one, GetItem the order it names, consistent —
    1 RCU. None (nothing more read) when the key placed nothing: the caller may place it.

    Read before anything else, so a request sent again is answered what it placed whatever changed since (the
    API's creates, R22-3), and draws no number (atomic numbering's replay through ``order_place`` leaves a gap).
    KeyReused when the key was used with another ``fingerprint``.
    """
    record = record_get(tenant=customer, kind="order", key=idempotency_key)
    return None if record is None else _replayed(customer, record, "", fingerprint)


def _replayed(
    customer: str, record: CreationRecord | None, request: str, fingerprint: str | None
) -> Claimed[OrderItem]:
    """The order an idempotency record names (GetItem, consistent: 1 RCU); ``replayed`` unless it was this call's.

    KeyReused (before the read) when the record was written for another request's ``fingerprint``.
    """
    if record is None:  # expired between the refused write and this read: vanishingly rare, never silent
        raise AlreadyExists("this form was already submitted", customer=customer)
    check_fingerprint(record, fingerprint)
    order = OrderItem.get(customer, record.result, consistent_read=True)
    return Claimed(item=order, number=int(order.number), attempts=1, replayed=record.request != request)


@capacity.access_pattern("orders.transition")
def order_transition(order: OrderItem, *, to: str, by: str) -> OrderItem:
    """UpdateItem status if it is still the one left — 1 WCU + 1 WCU (by_time entry).

    Raises InvalidTransition for a move the workflow does not allow, or when the order's status
    changed since it was read (nothing is written either way).
    """
    current = order.status
    if to not in TRANSITIONS.get(current, frozenset()):
        raise InvalidTransition(f"an order that is {current} cannot become {to}", current=current, to=to)
    try:
        order.update(
            actions=[OrderItem.status.set(to), OrderItem.updated_at.set(utcnow()), OrderItem.updated_by.set(by)],
            condition=OrderItem.status == current,
        )
    except UpdateError as error:
        if is_conditional_failure(error):
            raise ChangedSinceRead(f"the order is no longer {current}", wanted=to, number=order.number) from error
        raise
    return order
