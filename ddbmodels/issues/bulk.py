"""Loading many issues at once: BatchWriteItem of whole issues and their ``terms`` entries.

For loads whose numbers are already decided (benchmarks, demo data, imports): the puts are
unconditional, so a rerun of the same load overwrites what it wrote and adds nothing. Issues
users create go through ``writes.issue_create`` (the sort-key sequence), never through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ddbmodels.core import batch, capacity
from ddbmodels.issues.model import CollectionItem, IssueItem, issue_row
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
