"""The floor of an issue write, worked out from the items it wrote, as stored before and after it.

An issue write (create, edit, status change, tombstone) writes the issue and its list-index entries
(one in each sparse list index whose key the issue carries: 3, or 4 when assigned). A labelled
issue also has its ``labels`` entries (one per label, under the label's own key): a create puts
them in its TransactWriteItems (with the idempotency record when a form sent a key); an edit, a
status change or a tombstone writes them after its UpdateItem, each on its own (a guarded PutItem
or DeleteItem). A label the team never used gets its registry item first (a PutItem). Title words
are not DynamoDB's any more (the search engine's). DynamoDB's floor, by AWS's pricing rules:

- the issue: 1 WCU per started KB of the larger of its old and new image;
- each list index: an entry put or deleted, 1 WCU per started KB of the entry (the table's and
  the index's keys and the projected attributes); an entry whose key moves (the status is in the
  partition key, the last update in the sort key) is a delete and a put; an entry rewritten in
  place, the larger of old and new; an entry that did not change, nothing;
- each ``labels`` entry put (new, or rewritten because its copy of the list row changed: every
  edit changes ``ua`` and the version) or deleted, each registry item, the idempotency record and
  its ``by_tenant`` index entry: 1 WCU per started KB;
- in a transaction (a create with labels or a record), 2× each item written (the issue, the
  entries, the record), the index entries as above (``bench/README.md``: the orders' and awards'
  rows count them the same way);
- a write that puts the issue into a milestone (or reopens it inside one) is a transaction with a
  ConditionCheck of that milestone (``ddbmodels.issues.guarded``): the issue 2× as above, the
  check 2 WCU per started KB of the milestone item as stored (``milestone_checked``), the labels
  entries still after it, each on its own.

DynamoDB Local reports a transaction differently (probed with 0, 1, 3 and 6 entries, puts and
deletes, items of 1–4 KB, one or two issues): it charges the index entries twice, like the items,
and within a table it adds up each *distinct* per-item charge once — three entries of ≤ 1 KB
cost 2 WCU together, not 6 — as if the per-item charges were collected in a set. ``local``
applies that rule to the same items; outside a transaction Local charges what DynamoDB does.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ddbmodels.core import connection
from ddbmodels.idempotency import CreationRecord, record_pk
from ddbmodels.issues import CollectionItem, collection_key
from ddbmodels.labels import LabelEntry, issue_of, label_key
from devtools import bench
from devtools.bench import item_size, write_units

Raw = dict[str, Any]  # an item in DynamoDB JSON

LOCAL_TRANSACTION = (
    "DynamoDB Local charges a transaction's index entries twice, like the items, and a table's items of equal "
    "charge in one transaction once (two ≤ 1 KB label entries: 2 WCU, not 4)"
)


@dataclass(frozen=True)
class ListIndex:
    """A list index of the issues table: its key attributes and the attributes its entries hold."""

    name: str
    keys: tuple[str, ...]
    attributes: frozenset[str]

    def entry(self, item: Raw | None) -> Raw | None:
        """The index entry ``item`` makes (None when it lacks a key attribute: the index is sparse)."""
        if item is None or not all(key in item for key in self.keys):
            return None
        return {name: value for name, value in item.items() if name in self.attributes}

    def units(self, before: Raw | None, after: Raw | None) -> int:
        """WCU of the index for the change ``before`` → ``after``: put, delete, move (both) or rewrite."""
        old, new = self.entry(before), self.entry(after)
        if old is not None and new is not None and all(old[key] == new[key] for key in self.keys):
            return 0 if old == new else write_units(max(item_size(old), item_size(new)))
        return sum(write_units(item_size(entry)) for entry in (old, new) if entry is not None)


@functools.cache
def list_indexes() -> tuple[ListIndex, ...]:
    """The issues table's indexes as the model declares them (the KEYS_ONLY ``projects`` one never holds an issue)."""
    schema = CollectionItem._get_schema()
    table_keys = [key["AttributeName"] for key in schema["key_schema"]]
    found = []
    for index in schema["global_secondary_indexes"]:
        projection = index["projection"]
        bench.check(projection["ProjectionType"] != "ALL", f"{index['index_name']}: an ALL index is not sized here")
        keys = tuple(key["AttributeName"] for key in index["key_schema"])
        projected = list(projection.get("NonKeyAttributes") or [])
        found.append(ListIndex(index["index_name"], keys, frozenset([*table_keys, *keys, *projected])))
    return tuple(found)


@dataclass(frozen=True)
class Stored:
    """An issue, its ``labels`` entries and the team's registered labels as stored (``item`` None before a create)."""

    item: Raw | None = None
    entries: dict[tuple[str, str], Raw] = field(default_factory=dict)  # by (partition key, sort key)
    registry: frozenset[str] = frozenset()


def _items(request: dict[str, Any]) -> list[Raw]:
    client, found = connection.client(), []
    while True:
        page = client.query(**request, ConsistentRead=True)
        found += page["Items"]
        if "LastEvaluatedKey" not in page:
            return found
        request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}


def _partition(key: str) -> list[Raw]:
    return _items(
        {
            "TableName": LabelEntry.Meta.table_name,
            "KeyConditionExpression": "lk = :k",
            "ExpressionAttributeValues": {":k": {"S": key}},
        }
    )


def stored_project(tenant: str, project_key: str) -> dict[int, Stored]:
    """Every issue of a project with its label entries, as stored now (read outside every meter).

    The entries are read from each registered label's partition (the team's registry names them).
    """

    def read() -> dict[int, Stored]:
        registry = frozenset(item["s"]["S"] for item in _partition(tenant))
        by_issue: dict[int, dict[tuple[str, str], Raw]] = {}
        for label in registry:
            for entry in _partition(label_key(tenant, label)):
                project, number = issue_of(entry["s"]["S"])
                if project == project_key:
                    by_issue.setdefault(number, {})[(entry["lk"]["S"], entry["s"]["S"])] = entry
        issues = _items(
            {
                "TableName": CollectionItem.Meta.table_name,
                "KeyConditionExpression": "pk = :p AND n > :z",
                "ExpressionAttributeValues": {":p": {"S": collection_key(tenant, project_key)}, ":z": {"N": "0"}},
            }
        )
        return {int(i["n"]["N"]): Stored(i, by_issue.get(int(i["n"]["N"]), {}), registry) for i in issues}

    return bench.unmetered(read)


def stored_issue(tenant: str, project_key: str, number: int) -> Stored:
    """One issue with its entries, as stored now (read outside every meter)."""
    found = stored_project(tenant, project_key)
    if number in found:
        return found[number]
    registry = next(iter(found.values())).registry if found else bench.unmetered(lambda: _registry(tenant))
    return Stored(registry=registry)


def _registry(tenant: str) -> frozenset[str]:
    return frozenset(item["s"]["S"] for item in _partition(tenant))


def stored_registry(tenant: str) -> frozenset[str]:
    """The team's registered labels (read outside every meter)."""
    return bench.unmetered(lambda: _registry(tenant))


def stored_record(tenant: str, project_key: str, key: str) -> Raw:
    """The idempotency record an issue created with ``key`` wrote (read outside every meter)."""

    def read() -> Raw:
        pk = record_pk(tenant, f"issue#{project_key}", key)
        answer = connection.client().get_item(
            TableName=CreationRecord.Meta.table_name, Key={"k": {"S": pk}}, ConsistentRead=True
        )
        bench.check("Item" in answer, f"no idempotency record {pk}")
        return dict(answer["Item"])

    return bench.unmetered(read)


def record_index_entry(record: Raw) -> Raw:
    """The record's ``by_tenant`` entry (KEYS_ONLY: the table's key and the index's)."""
    return {name: record[name] for name in ("k", "ts") if name in record}


def _larger(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> int:
    return write_units(max(item_size(old or {}), item_size(new)))


@dataclass(frozen=True)
class WriteCost:
    """An issue write's WCU: DynamoDB's floor and what DynamoDB Local charges for it."""

    dynamodb: float
    local: float
    transaction: bool
    index: float  # the list-index entries' share of DynamoDB's floor
    rcu: float = 0.0  # reads besides the write's own: a new label's registry GetItem (0.5 RCU)
    requests: int = 0  # requests besides the write's own: each label entry written on its own, a new label's two

    @property
    def local_replay(self) -> float:
        """What DynamoDB Local reports for the transaction sent again with its ClientRequestToken once committed
        (an idempotent replay: it writes nothing, and its answer leaves the index entries out)."""
        return self.local - 2 * self.index


def milestone_checked(before: Raw | None, after: Raw) -> str | None:
    """The milestone the write's ConditionCheck read (``ddbmodels.issues.guarded.guard_for``): the one the issue was
    put into, or the one it was reopened inside (resolved/closed → open/in_progress); None: no check."""
    into = (after.get("ms") or {}).get("S")
    was = ((before or {}).get("ms") or {}).get("S")
    if into and into != was:
        return into
    reopened = before is not None and before["st"]["S"] in ("resolved", "closed")
    if into and reopened and after["st"]["S"] in ("open", "in_progress"):
        return into
    return None


def stored_milestone(tenant: str, project_key: str, milestone_id: str) -> Raw:
    """A milestone item as stored (read outside every meter): what its ConditionCheck is charged on."""

    def read() -> Raw:
        answer = connection.client().get_item(
            TableName=connection.table_name("milestones"),
            Key={"pk": {"S": f"{tenant}#{project_key}"}, "m": {"S": milestone_id}},
            ConsistentRead=True,
        )
        bench.check("Item" in answer, f"no milestone {milestone_id}")
        return dict(answer["Item"])

    return bench.unmetered(read)


def write_cost(before: Stored, after: Stored, record: Raw | None = None, check: Raw | None = None) -> WriteCost:
    """The WCU of the write that turned ``before`` into ``after`` (with ``record``, an idempotency record; with
    ``check``, the milestone its transaction's ConditionCheck read)."""
    assert after.item is not None
    checked = write_units(item_size(check), transactional=True) if check is not None else 0
    issue = _larger(before.item, after.item)
    index = [i.units(before.item, after.item) for i in list_indexes()]
    puts = [_larger(before.entries.get(k), e) for k, e in after.entries.items() if before.entries.get(k) != e]
    deletes = [write_units(item_size(e)) for k, e in before.entries.items() if k not in after.entries]
    entries = [*puts, *deletes]  # the labels entries written
    registered = [1] * len(after.registry - before.registry)  # registry items (a label new to the team), ≤ 1 KB
    records = [write_units(item_size(record))] if record is not None else []
    record_index = [write_units(item_size(record_index_entry(record)))] if record is not None else []
    outside = sum(registered)  # PutItems of their own, before the write: the same on both
    reads, calls = 0.5 * len(registered), 2 * len(registered)  # each new label: GetItem (not there) + PutItem
    if before.item is not None and check is not None:
        # TransactWriteItems [ConditionCheck the milestone, Update the issue], then each entry on its own
        dynamodb = 2 * issue + sum(index) + checked + sum(entries) + outside
        local = 2 * (issue + sum(index)) + checked + sum(entries) + outside  # Local: the index entries doubled
        return WriteCost(dynamodb, local, transaction=True, index=sum(index), rcu=reads, requests=calls + len(entries))
    if before.item is not None or (not puts and not records and check is None):
        # an UpdateItem (or a plain PutItem) and then each entry on its own: Local charges what DynamoDB does
        total = issue + sum(index) + sum(entries) + outside
        alone = len(entries) if before.item is not None else 0
        return WriteCost(total, total, transaction=False, index=sum(index), rcu=reads, requests=calls + alone)
    dynamodb = 2 * issue + sum(index) + 2 * sum(entries) + 2 * sum(records) + sum(record_index) + outside + checked
    # Local: the issue's and the record's charges with their index entries doubled; each distinct entry charge once
    local = 2 * (issue + sum(index)) + 2 * sum(set(entries)) + 2 * (sum(records) + sum(record_index)) + outside
    local += checked
    return WriteCost(dynamodb, local, transaction=True, index=sum(index) + sum(record_index), rcu=reads, requests=calls)


def total_cost(costs: Iterable[WriteCost]) -> tuple[float, float]:
    """DynamoDB's and Local's WCU of many writes."""
    listed = list(costs)
    return sum(c.dynamodb for c in listed), sum(c.local for c in listed)


class IssueWrite:
    """A row's basis for one issue write: the issue as stored before the call, read when made.

    ``cost(result)`` reads it after the call (outside every meter, once) and works out the write.
    """

    def __init__(self, tenant: str, project_key: str, number: int | None = None, idempotency_key: str | None = None):
        self.tenant, self.project_key, self.idempotency_key = tenant, project_key, idempotency_key
        if number is not None:
            self.before = stored_issue(tenant, project_key, number)
        else:  # a create: nothing of the issue yet, the team's registry as it is
            self.before = Stored(registry=stored_registry(tenant))
        self._cost: WriteCost | None = None

    def cost(self, result: Any) -> WriteCost:
        if self._cost is None:
            issue = getattr(result, "item", result)  # a create returns Claimed, an edit the issue
            after = stored_issue(self.tenant, self.project_key, int(issue.number))
            key = self.idempotency_key
            record = stored_record(self.tenant, self.project_key, key) if key else None
            assert after.item is not None
            into = milestone_checked(self.before.item, after.item)
            check = stored_milestone(self.tenant, self.project_key, into) if into else None
            self._cost = write_cost(self.before, after, record, check)
        return self._cost
