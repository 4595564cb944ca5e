"""Numbers from a sort-key sequence: the next number is one more than the largest sort key.

The pattern: a strongly consistent Query of the item collection,
sort key descending, ``Limit 1`` reads the current maximum; a PutItem conditioned on
``attribute_not_exists(<sort key>)`` claims max + 1. Two writers that read the same maximum
both try the same number; DynamoDB lets exactly one win, the loser re-reads and tries again.

Cost per number, without contention: 1 RCU (consistent read of one item ≤ 4 KB) + 1 WCU per
started KB of the new item. Each lost race costs one more read and one more (charged, failed)
write. Numbers are unique and gap-free as long as nothing is ever deleted from the collection:
deleting the top item would let the max-read hand its number out again, so callers tombstone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from pynamodb.exceptions import PutError
from pynamodb.models import Model

from ddbmodels.core import retry
from ddbmodels.core.errors import SequenceContention, is_conditional_failure

T = TypeVar("T", bound=Model)

# 16 writers on one project: 12 attempts was seen to give up 1–3% of the time
BACKOFF = retry.Backoff(attempts=32, base_s=0.004, cap_s=0.25)


@dataclass(frozen=True)
class Claimed(Generic[T]):
    """The item that won its number, and what it took to get there."""

    item: T
    number: int
    attempts: int

    @property
    def conflicts(self) -> int:
        return self.attempts - 1


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


def put_next(
    model: type[T],
    hash_key: object,
    build: Callable[[int | None], T],
    *,
    max_attempts: int = BACKOFF.attempts,
    rng: random.Random | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Claimed[T]:
    """Query max SK (1 RCU, consistent) + PutItem if attribute_not_exists(SK) (≥ 1 WCU), retried.

    ``build(last)`` receives the current largest sort key (None for an empty collection) and
    returns the item to put; it may raise to refuse (for example when the collection's static
    item is missing). A lost race re-reads after a full-jitter exponential backoff; after
    ``max_attempts`` lost races it raises SequenceContention and has written nothing.
    """
    range_name = model._range_keyname
    assert range_name is not None, f"{model.__name__} has no sort key"
    range_attr = model.get_attributes()[range_name]
    for attempt in retry.attempts(replace(BACKOFF, attempts=max_attempts), rng=rng, sleep=sleep):
        last = latest_sort_key(model, hash_key)
        item = build(last)
        try:
            item.save(condition=range_attr.does_not_exist())
        except PutError as error:
            if not is_conditional_failure(error):
                raise
            continue  # lost the race: full-jitter backoff, then re-read the largest sort key
        return Claimed(item=item, number=int(getattr(item, range_name)), attempts=attempt)
    raise SequenceContention(f"gave up after {max_attempts} attempts", hash_key=hash_key, attempts=max_attempts)
