"""A sparse global index of the items caught in an intermediate state.

DynamoDB copies an item into a global index only while the item carries the index's key
attributes. Write those attributes when an item *enters* an intermediate state and REMOVE them
in the same conditional UpdateItem that *leaves* it, and the index holds exactly the items in
flight: no filter, no scan, and its size is the number of in-flight items, not the table's.

    index PK  "<state>#<n>"   n = crc32(item key) % N + 1, a calculated write-shard suffix
    index SK  when the item entered the state (UTC, microseconds; sorts as a string)

The state in the partition key lets a repair job ask for one state's stragglers only; the
suffix spreads a burst of state changes over N partitions instead of one hot key. Reading costs
one Query per state and shard, merged oldest first.

Every transition is conditional on the state it leaves (the caller passes the condition), so two
writers cannot both win a transition, and a refused one writes nothing. ``entered_at`` adds "…and
it is still the same visit to that state", which lets an owner re-stamp the entry time to claim
an item (a later writer conditioned on the old time is refused).

Cost for items ≤ 1 KB: entering or leaving is 1 WCU for the table + 1 WCU for the index entry
put or deleted (2 WCU); re-stamping the entry time changes the index key, a delete and a put
there (3 WCU). A refused transition is charged 1 WCU and reports nothing. Reading: 0.5 RCU per
started 4 KB of index entries per Query.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any, Generic, TypeVar

from pynamodb.attributes import Attribute
from pynamodb.exceptions import PutError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.indexes import GlobalSecondaryIndex
from pynamodb.models import Model

from ddbmodels.core.errors import InvalidTransition, is_conditional_failure
from ddbmodels.core.keys import shard_suffix

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class SparseIndex(Generic[M]):
    """Which model, index and attributes make up a sparse in-flight index."""

    model: type[M]
    index: GlobalSecondaryIndex[M]
    partition: str  # Python name of the attribute holding the index PK
    since: str  # Python name of the attribute holding the index SK (a UTCDateTimeAttribute)
    shards: int
    shard_key: Callable[[M], str]  # what the suffix is calculated from (e.g. the item's id)

    def attribute(self, name: str) -> Attribute[Any]:
        return self.model.get_attributes()[name]

    def partition_value(self, state: str, item: M) -> str:
        return f"{state}#{shard_suffix(self.shard_key(item), self.shards)}"

    def partitions(self, state: str) -> list[str]:
        return [f"{state}#{n}" for n in range(1, self.shards + 1)]

    def entered_at(self, item: M) -> Condition:
        """Condition: the item still carries the entry time this copy of it has (the same visit)."""
        return self.attribute(self.since) == getattr(item, self.since)


def put_entering(ix: SparseIndex[M], item: M, *, state: str, at: datetime, condition: Condition) -> None:
    """PutItem with the index keys set, if ``condition`` — 1 WCU + 1 WCU for the index entry per KB.

    Raises InvalidTransition when the condition is false (nothing written).
    """
    setattr(item, ix.partition, ix.partition_value(state, item))
    setattr(item, ix.since, at)
    try:
        item.save(condition=condition)
    except PutError as error:
        if is_conditional_failure(error):
            raise InvalidTransition("refused by its condition") from error
        raise


def enter(
    ix: SparseIndex[M], item: M, *, state: str, at: datetime, condition: Condition, actions: Sequence[Action] = ()
) -> None:
    """UpdateItem SET the index keys (and ``actions``) if ``condition`` — 1 WCU + 1 WCU (new entry).

    Entering the state an item is already in re-stamps its entry time: the index key changes, a
    delete and a put in the index (1 + 2 WCU). Raises InvalidTransition when refused.
    """
    keys = [ix.attribute(ix.partition).set(ix.partition_value(state, item)), ix.attribute(ix.since).set(at)]
    _update(item, [*actions, *keys], condition)


def leave(ix: SparseIndex[M], item: M, *, condition: Condition, actions: Sequence[Action] = ()) -> None:
    """UpdateItem REMOVE the index keys (and ``actions``) if ``condition`` — 1 WCU + 1 WCU (entry deleted).

    Raises InvalidTransition when refused (nothing written).
    """
    keys = [ix.attribute(ix.partition).remove(), ix.attribute(ix.since).remove()]
    _update(item, [*actions, *keys], condition)


def _update(item: Model, actions: list[Action], condition: Condition) -> None:
    try:
        item.update(actions=actions, condition=condition)
    except UpdateError as error:
        if is_conditional_failure(error):
            raise InvalidTransition("refused by its condition") from error
        raise


def entered_before(
    ix: SparseIndex[M], *, states: Sequence[str], before: datetime, limit: int | None = None
) -> Iterator[M]:
    """Query index PK=<state>#<n>, SK < before, per state and shard — 0.5 RCU per 4 KB per Query.

    Items that entered one of ``states`` before ``before``, oldest first across every shard
    (each Query is already sorted by entry time; the streams are merged). Index reads are
    eventually consistent: an item may have moved on since, so act on it conditionally.
    """
    since = ix.attribute(ix.since)
    streams = [
        ix.index.query(partition, range_key_condition=since < before)
        for state in states
        for partition in ix.partitions(state)
    ]
    merged = heapq.merge(*streams, key=lambda item: getattr(item, ix.since))
    return islice(merged, limit) if limit is not None else merged
