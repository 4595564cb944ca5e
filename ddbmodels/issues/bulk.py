"""Loading many issues at once (BatchWriteItem of whole issues and their ``terms`` entries), and reindexing.

For loads whose numbers are already decided (benchmarks, demo data, imports): the puts are
unconditional, so a rerun of the same load overwrites what it wrote and adds nothing. Issues
users create go through ``writes.issue_create`` (the sort-key sequence), never through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from ddbmodels.core import batch, capacity
from ddbmodels.core.errors import is_conditional_failure
from ddbmodels.issues.model import PROJECT_SK, CollectionItem, IssueItem, collection_key, issue_row
from ddbmodels.terms import TermEntry, entries_for


def issue_requests(issue: IssueItem) -> Iterator[tuple[str, dict[str, Any]]]:
    """The put requests that store ``issue`` with its list-index keys and its ``terms`` entries."""
    issue.set_list_keys()
    yield batch.put(CollectionItem.Meta.table_name, issue.serialize())
    if not issue.is_tombstone:
        for entry in entries_for(issue_row(issue)).values():
            yield batch.put(TermEntry.Meta.table_name, entry)


@capacity.access_pattern("issues.bulk_put")
def issues_put_many(issues: Iterable[IssueItem]) -> int:
    """BatchWriteItem, 25 requests each — 1 WCU per started KB of every issue and entry (+ 3–4 list-index entries).

    Returns the number of items written (issues and entries).
    """
    return batch.batch_write(request for issue in issues for request in issue_requests(issue))


@dataclass(frozen=True)
class Reindexed:
    """What ``project_reindex`` did to one project."""

    issues: int  # issues read
    keys_set: int  # issues whose list-index keys were missing or wrong, now right
    entries: int  # terms entries written


@capacity.access_pattern("issues.reindex")
def project_reindex(*, tenant: str, project_key: str) -> Reindexed:
    """Query the collection (consistent, 1 RCU per 4 KB) + UpdateItem per issue whose list keys are off (1 WCU
    + its index entries) + BatchWriteItem of every live issue's ``terms`` entries (1 WCU each).

    For installs whose issues predate the list indexes (``tables.create_all`` adds the indexes,
    this fills them); idempotent, so a rerun rewrites the same entries and fixes nothing twice.
    A key update is conditioned on the version read, without changing it: an issue saved
    meanwhile was saved by code that keeps its keys, and is left alone.
    """
    pk = collection_key(tenant, project_key)
    connection = CollectionItem._get_connection()
    read = fixed = 0
    requests: list[tuple[str, dict[str, Any]]] = []
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
        if not item.is_tombstone:
            requests.extend(batch.put(TermEntry.Meta.table_name, e) for e in entries_for(issue_row(item)).values())
    written = batch.batch_write(requests)
    return Reindexed(issues=read, keys_set=fixed, entries=written)
