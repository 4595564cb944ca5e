"""Loading many issues at once (BatchWriteItem of whole issues and their ``labels`` entries), reindexing, and
repairing an issue's label entries.

For loads whose numbers are already decided (benchmarks, demo data, imports): the puts are
unconditional, so a rerun of the same load overwrites what it wrote and adds nothing. Issues
users create go through ``creates.issue_create`` (the sort-key sequence), never through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from ddbmodels.core import batch, capacity
from ddbmodels.core.errors import is_conditional_failure
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import batch_get_pages, key_equals
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues.model import PROJECT_SK, CollectionItem, IssueItem, collection_key, issue_row
from ddbmodels.labels import (
    LabelEntry,
    entries_for,
    entry_delete,
    entry_keys,
    entry_put,
    issue_of,
    label_key,
    registry_ensure,
    team_labels,
)


def issue_requests(issue: IssueItem) -> Iterator[tuple[str, dict[str, Any]]]:
    """The put requests that store ``issue`` with its list-index keys and its ``labels`` entries.

    A label new to this process is registered first (``labels.registry_ensure``: 0.5 RCU, and 1 WCU
    when new to the team), before any of its entries is yielded.
    """
    issue.set_list_keys()
    yield batch.put(CollectionItem.Meta.table_name, issue.serialize())
    if not issue.is_tombstone and issue.labels:
        registry_ensure(issue.tenant, issue.labels)
        for entry in entries_for(issue_row(issue)).values():
            yield batch.put(LabelEntry.Meta.table_name, entry)


@capacity.access_pattern("issues.bulk_put")
def issues_put_many(issues: Iterable[IssueItem]) -> int:
    """BatchWriteItem, 25 requests each — 1 WCU per started KB of every issue and entry (+ 3–4 list-index entries).

    Returns the number of items written (issues and entries).
    """
    return batch.batch_write(request for issue in issues for request in issue_requests(issue))


def label_entries_put(issues: Iterable[IssueItem], *, bucket: TokenBucket | None = None) -> int:
    """BatchWriteItem the ``labels`` entries of each live labelled issue, paced by ``bucket`` — 1 WCU per entry ≤ 1 KB.

    Unconditional puts (a batch cannot carry the entries' version guard): ``labels_settle`` repairs an
    issue saved since it was read. The labels must be registered already (``labels.registry_ensure``).
    Returns the number of entries written.
    """
    requests = [
        batch.put(LabelEntry.Meta.table_name, entry)
        for issue in issues
        if not issue.is_tombstone and issue.labels
        for entry in entries_for(issue_row(issue)).values()
    ]
    return batch.batch_write_paced(requests, bucket=bucket).written


@dataclass(frozen=True)
class Reindexed:
    """What ``project_reindex`` did to one project."""

    issues: int  # issues read
    keys_set: int  # issues whose list-index keys were missing or wrong, now right
    entries: int  # label entries written


@capacity.access_pattern("issues.reindex")
def project_reindex(*, tenant: str, project_key: str) -> Reindexed:
    """Query the collection (consistent, 1 RCU per 4 KB) + UpdateItem per issue whose list keys are off (1 WCU
    + its index entries) + BatchWriteItem of every live issue's ``labels`` entries (1 WCU each).

    For installs whose issues predate the list indexes (``tables.create_all`` adds the indexes,
    this fills them); idempotent, so a rerun rewrites the same entries and fixes nothing twice.
    A key update is conditioned on the version read, without changing it: an issue saved
    meanwhile was saved by code that keeps its keys, and is left alone.
    """
    pk = collection_key(tenant, project_key)
    connection = CollectionItem._get_connection()
    read = fixed = 0
    requests: list[tuple[str, dict[str, Any]]] = []
    labelled: list[IssueItem] = []
    for item in CollectionItem.query(pk, range_key_condition=CollectionItem.number > PROJECT_SK, consistent_read=True):
        if not isinstance(item, IssueItem):
            continue
        read += 1
        wanted = item.list_keys()
        if any(getattr(item, name) != value for name, value in wanted.items()):
            actions = [
                getattr(IssueItem, name).set(value) if value else getattr(IssueItem, name).remove()
                for name, value in wanted.items()
            ]
            try:
                connection.update_item(
                    pk, str(int(item.number)), actions=actions, condition=IssueItem.version == item.version
                )
                fixed += 1
            except UpdateError as error:
                if not is_conditional_failure(error):
                    raise
        if not item.is_tombstone and item.labels:
            registry_ensure(tenant, item.labels)
            labelled.append(item)
            requests.extend(batch.put(LabelEntry.Meta.table_name, e) for e in entries_for(issue_row(item)).values())
    written = batch.batch_write(requests)
    labels_settle(labelled)
    return Reindexed(issues=read, keys_set=fixed, entries=written)


def labels_settle(issues: Iterable[IssueItem]) -> int:
    """After a BatchWriteItem of these issues' ``labels`` entries: BatchGetItem of their versions
    (consistent, projecting ``v``: 1 RCU an issue), then ``issue_labels_reconcile`` of each one
    saved since it was read (with the labels it had) — returns how many were reconciled.

    BatchWriteItem cannot carry the entries' version guard, so an edit that landed between the read
    and the batch may have been overwritten by an older copy. An edit whose update came before this
    read is seen here and repaired; one whose update comes after it writes its own entries after
    the batch, guarded by a newer version, and wins.
    """
    read = {(issue.project_key, int(issue.number)): issue for issue in issues}
    if not read:
        return 0
    tenant = next(iter(read.values())).tenant
    keys = [{"pk": {"S": collection_key(tenant, p)}, "n": {"N": str(n)}} for p, n in read]
    now: dict[tuple[str, int], int] = {}
    for page in batch_get_pages(CollectionItem.Meta.table_name, keys):
        for raw in page:
            project_key = raw["pk"]["S"].rsplit("#", 1)[-1]
            now[(project_key, int(raw["n"]["N"]))] = int(raw.get("v", {}).get("N", "0"))
    settled = 0
    for ref, issue in read.items():
        if now.get(ref, GONE) != int(issue.version or 0):
            issue_labels_reconcile(
                tenant=tenant, project_key=ref[0], number=ref[1], labels_also=set(issue.labels or ())
            )
            settled += 1
    return settled


GONE = 10**15  # the guard for entries of an issue that does not exist: older than any version


def same_item(a: dict[str, Any] | None, b: dict[str, Any]) -> bool:
    """Two raw items (DynamoDB JSON) hold the same values: a set's members come back in any order."""

    def plain(value: dict[str, Any]) -> Any:
        (kind, inner), *_ = value.items()
        return (kind, frozenset(inner)) if kind in ("SS", "NS", "BS") else (kind, str(inner))

    return a is not None and a.keys() == b.keys() and all(plain(a[name]) == plain(b[name]) for name in b)


RECONCILE_ROUNDS = 3  # a reconcile that wrote reads the version again, and goes round if a newer write came meanwhile


@dataclass(frozen=True)
class Reconciled:
    """What ``issue_labels_reconcile`` found and did."""

    checked: int  # entry keys read
    put: int  # entries written (missing, or an older copy)
    deleted: int  # entries removed (a status or label the issue no longer has)


@capacity.access_pattern("labels.reconcile")
def issue_labels_reconcile(
    *, tenant: str, project_key: str, number: int, labels_also: Iterable[str] = ()
) -> Reconciled:
    """Make an issue's ``labels`` entries what the issue says — idempotent, safe beside live writers.

    GetItem of the issue (consistent, 1 RCU) + BatchGetItem (consistent) of every key its entries
    may have: each label it has or ``labels_also`` names (labels it had: the change event's), in
    every status — 1 RCU a key (2 labels: 8 RCU). Then, guarded by the issue's version like every
    entry write, puts what is missing or older (1 WCU each) and deletes what it should not have
    (1 WCU each). A correct issue costs the reads alone; one that needed a write reads the issue's
    version once more (1 RCU) and goes round again if a newer write came meanwhile (its entries may
    have been moved under this one's writes). Called by the change-event task after each
    issue write (a writer that died between its update and its entries leaves them stale until
    then) and by ``manage.py upgrade_search``.
    """
    checked = put = deleted = 0
    labels: set[str] = set(labels_also)  # grows each round: a label an earlier round saw may need its entry removed
    for _ in range(RECONCILE_ROUNDS):
        try:
            item = CollectionItem.get(collection_key(tenant, project_key), number, consistent_read=True)
        except CollectionItem.DoesNotExist:
            item = None
        issue = item if isinstance(item, IssueItem) else None
        wanted = entries_for(issue_row(issue)) if issue is not None and not issue.is_tombstone else {}
        version = int(issue.version or 0) if issue is not None else GONE
        labels |= set(issue.labels or ()) if issue is not None else set()
        if wanted and issue is not None:
            registry_ensure(tenant, set(issue.labels or ()))
        keys = entry_keys(tenant, frozenset(labels), project_key, number)
        stored = {
            (raw["lk"]["S"], raw["s"]["S"]): raw
            for page in batch_get_pages(LabelEntry.Meta.table_name, keys)
            for raw in page
        }
        checked += len(keys)
        wrote = 0
        for key, entry in wanted.items():
            if not same_item(stored.get(key), entry):
                done = entry_put(entry)
                put, wrote = put + done, wrote + done
        for key, raw in stored.items():
            if key not in wanted:
                done = entry_delete(raw, version)
                deleted, wrote = deleted + done, wrote + done
        if not wrote or issue is None:
            break
        # it wrote: was that still the issue's latest version? (a newer writer may have moved on meanwhile)
        pk = collection_key(tenant, project_key)
        now = CollectionItem.get(pk, number, consistent_read=True, attributes_to_get=["v"])
        if int(getattr(now, "version", 0) or 0) == version:
            break
    return Reconciled(checked=checked, put=put, deleted=deleted)


@dataclass(frozen=True)
class LabelsChecked:
    """What ``team_labels_check`` found (and, with ``fix``, repaired)."""

    labels: int  # labels the team's registry names
    entries: int  # entries read
    stale: int  # entries the issue they name no longer has (another status, a label removed, a tombstone)
    fixed: int  # issues reconciled


@capacity.access_pattern("labels.check")
def team_labels_check(*, tenant: str, fix: bool = False) -> LabelsChecked:
    """Every label entry of a team against its issue: the label registry (Query), each label's partition
    (Query, consistent: 1 RCU per 4 KB of entries), the issues they name (BatchGetItem, consistent: 1 RCU
    an issue, 100 a request). An entry is stale when its issue, as stored, would not have it; with ``fix``
    each such issue is reconciled (``issue_labels_reconcile`` with the entry's label).

    The check behind ``manage.py upgrade_search --check-labels``: what a writer that stopped between an
    issue's update and its entries, and whose change event never ran, left behind.
    """
    table = LabelEntry.Meta.table_name
    registered = team_labels(tenant)
    read = 0
    found: dict[tuple[str, int], list[tuple[str, dict[str, Any]]]] = {}
    for label in registered:
        for page in query_pages(table, **key_equals("lk", label_key(tenant, label), consistent=True)):
            for raw in page:
                read += 1
                found.setdefault(issue_of(raw["s"]["S"]), []).append((label, raw))
    refs = sorted(found)
    keys = [{"pk": {"S": collection_key(tenant, p)}, "n": {"N": str(n)}} for p, n in refs]
    stored: dict[tuple[str, int], IssueItem] = {}
    for page in batch_get_pages(CollectionItem.Meta.table_name, keys):
        for raw in page:
            item = CollectionItem.from_raw_data(raw)
            if isinstance(item, IssueItem):
                stored[(item.project_key, int(item.number))] = item
    stale, fixed = 0, 0
    for ref in refs:
        issue = stored.get(ref)
        wanted = entries_for(issue_row(issue)) if issue is not None and not issue.is_tombstone else {}
        wrong = [
            (label, raw)
            for label, raw in found[ref]
            if not same_item(raw, wanted.get((raw["lk"]["S"], raw["s"]["S"]), {}))
        ]
        stale += len(wrong)
        if wrong and fix:
            issue_labels_reconcile(
                tenant=tenant, project_key=ref[0], number=ref[1], labels_also={label for label, _ in wrong}
            )
            fixed += 1
    return LabelsChecked(labels=len(registered), entries=read, stale=stale, fixed=fixed)
