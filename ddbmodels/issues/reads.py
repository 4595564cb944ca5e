"""Reading issues and projects: one GetItem, or one Query of the collection or of the sparse ``projects`` index."""

from __future__ import annotations

from typing import Any

from pynamodb.exceptions import DoesNotExist
from pynamodb.expressions.condition import Condition

from ddbmodels.core import capacity
from ddbmodels.core.connection import table_name
from ddbmodels.issues.indexes import ProjectsIndex
from ddbmodels.issues.model import PROJECT_SK, CollectionItem, IssueItem, ProjectItem, collection_key
from ddbmodels.patterns.distinct_keys import ProgressCallback, distinct_keys
from ddbmodels.patterns.distinct_keys import Result as DistinctKeys
from ddbmodels.patterns.pagination import NEWER, Page, newest_first_page
from ddbmodels.patterns.sequences import latest_sort_key

MAX_ISSUE_NUMBER = 10**15 - 1  # far beyond any real project; keeps look-ups inside DynamoDB's N range


@capacity.access_pattern("issues.get")
def issue_get(*, tenant: str, project_key: str, number: int, consistent: bool = False) -> IssueItem | None:
    """GetItem pk, SK=number — 0.5 RCU (1 RCU consistent) per 4 KB. None when missing or SK 0."""
    if not PROJECT_SK < number <= MAX_ISSUE_NUMBER:
        return None
    try:
        item = CollectionItem.get(collection_key(tenant, project_key), number, consistent_read=consistent)
    except DoesNotExist:
        return None
    return item if isinstance(item, IssueItem) else None


def issue_live_check(*, tenant: str, project_key: str, number: int) -> dict[str, Any]:
    """A raw ConditionCheck for another table's TransactWriteItems (``RawTransactWrite.check_raw``): the issue
    exists and is not a tombstone. Charged as a transactional write of the issue's size: 2 WCU per started KB.
    """
    return {
        "TableName": CollectionItem.Meta.table_name,
        "Key": {"pk": {"S": collection_key(tenant, project_key)}, "n": {"N": str(int(number))}},
        "ConditionExpression": "attribute_exists(#n) AND attribute_not_exists(#d)",
        "ExpressionAttributeNames": {"#n": "n", "#d": "da"},
    }


def _range_for(after: int | None, direction: str) -> Condition:
    if after is None:
        return CollectionItem.number > PROJECT_SK
    if direction == NEWER:
        return CollectionItem.number > after
    return CollectionItem.number.between(PROJECT_SK + 1, after - 1)


@capacity.access_pattern("issues.page")
def issue_page(
    *,
    tenant: str,
    project_key: str,
    status: str | None = None,
    size: int = 25,
    after: int | None = None,
    direction: str = "older",
) -> Page[IssueItem]:
    """Query pk, SK > 0 descending, filter live (and status) — ≈ 0.5 RCU per 4 KB read.

    The status filter reads the issues it discards too: fine for collections of thousands.
    """
    if after is not None and after <= PROJECT_SK + 1 and direction != NEWER:
        return Page(items=[], older_than=None, newer_than=None)  # nothing is older than issue 1
    live: Any = IssueItem.deleted_at.does_not_exist()
    if status:
        live &= IssueItem.status == status
    return newest_first_page(
        IssueItem,
        collection_key(tenant, project_key),
        range_key_condition_for=_range_for,
        filter_condition=live,
        size=size,
        after=after,
        direction=direction,
    )


@capacity.access_pattern("issues.numbers")
def issue_numbers(*, tenant: str, project_key: str) -> list[int]:
    """Query pk, SK > 0, projecting only SK, consistent — 1 RCU per 4 KB read. Tombstones included."""
    return [
        int(item.number)
        for item in CollectionItem.query(
            collection_key(tenant, project_key),
            range_key_condition=CollectionItem.number > PROJECT_SK,
            consistent_read=True,
            attributes_to_get=["n", "k"],
        )
    ]


def issue_number_next(*, tenant: str, project_key: str) -> int:
    """The number the project's next issue will get: Query pk, SK descending, Limit 1, consistent — 1 RCU.

    The same read the sort-key sequence makes before claiming a number. Tombstones count (their
    numbers stay taken); the static item (SK 0) makes a project without issues answer 1.
    """
    return (latest_sort_key(CollectionItem, collection_key(tenant, project_key)) or 0) + 1


@capacity.access_pattern("projects.get")
def project_get(*, tenant: str, key: str, consistent: bool = False) -> ProjectItem | None:
    """GetItem pk, SK=0 — 0.5 RCU eventually consistent, 1 RCU ``consistent``. None when missing."""
    try:
        item = CollectionItem.get(collection_key(tenant, key), PROJECT_SK, consistent_read=consistent)
    except DoesNotExist:
        return None
    return item if isinstance(item, ProjectItem) else None


@capacity.access_pattern("projects.list")
def project_keys(*, tenant: str) -> list[str]:
    """Query index ``projects`` gt=tenant — 0.5 RCU per 4 KB of keys (≈ 80 projects per RCU)."""
    # The low-level Query: the model-level one would add a filter on the discriminator, which a
    # KEYS_ONLY index does not project.
    connection = CollectionItem._get_connection()
    keys: list[str] = []
    start_key = None
    while True:
        page = connection.query(tenant, index_name=ProjectsIndex.Meta.index_name, exclusive_start_key=start_key)
        keys.extend(entry["gk"]["S"] for entry in page.get("Items", []))
        start_key = page.get("LastEvaluatedKey")
        if not start_key:
            return keys


@capacity.access_pattern("projects.list")
def project_list(*, tenant: str) -> list[ProjectItem]:
    """Query index ``projects`` + BatchGetItem of the static items — 0.5 RCU per project + the Query."""
    keys = project_keys(tenant=tenant)
    found = {
        item.project_key: item
        for item in CollectionItem.batch_get([(collection_key(tenant, key), PROJECT_SK) for key in keys])
        if isinstance(item, ProjectItem)
    }
    return [found[key] for key in keys if key in found]


@capacity.access_pattern("projects.enumerate")
def all_project_keys() -> list[tuple[str, str]]:
    """Scan index ``projects`` (KEYS_ONLY, sparse) — 0.5 RCU per 4 KB: every (tenant, key) pair."""
    connection = CollectionItem._get_connection()
    found: list[tuple[str, str]] = []
    start_key = None
    while True:
        page = connection.scan(index_name=ProjectsIndex.Meta.index_name, exclusive_start_key=start_key)
        found.extend((entry["gt"]["S"], entry["gk"]["S"]) for entry in page.get("Items", []))
        start_key = page.get("LastEvaluatedKey")
        if not start_key:
            return sorted(found)


# What the search page shows of an issue (its list row and what tells a tombstone; not the description).
ROW_ATTRIBUTES = ["pk", "n", "k", "v", "t", "st", "pr", "as", "rp", "lb", "ca", "ua", "da"]


@capacity.access_pattern("issues.get_many")
def issues_get_many(*, tenant: str, refs: list[tuple[str, int]]) -> dict[tuple[str, int], IssueItem]:
    """BatchGetItem of up to 100 issues' list rows — 0.5 RCU per issue (each ≤ 4 KB), one request.

    Keyed by (project key, number); missing ones are absent, tombstones are included (``is_tombstone``).
    Unprocessed keys (throttling) are asked again by PynamoDB, a request each.
    """
    if len(refs) > 100:
        raise ValueError("at most 100 issues a BatchGetItem")
    keys = [(collection_key(tenant, key), number) for key, number in dict.fromkeys(refs)]
    if not keys:
        return {}
    found: dict[tuple[str, int], IssueItem] = {}
    for item in CollectionItem.batch_get(keys, attributes_to_get=ROW_ATTRIBUTES):
        if isinstance(item, IssueItem):
            found[(item.project_key, int(item.number))] = item
    return found


@capacity.access_pattern("issues.collection_page")
def issue_collection_page(
    *, tenant: str, project_key: str, after: int = PROJECT_SK, limit: int = 100, consistent: bool = False
) -> tuple[list[IssueItem], int | None]:
    """Query pk, SK > after ascending, Limit ``limit`` — 0.5 RCU per 4 KB read (1 ``consistent``), one request.
    Tombstones included.

    The issues in number order and the number to continue after (None at the end of the collection).
    """
    connection = CollectionItem._get_connection()
    page = connection.query(
        collection_key(tenant, project_key),
        range_key_condition=CollectionItem.number > after,
        scan_index_forward=True,
        limit=limit,
        consistent_read=consistent,
    )
    items = [CollectionItem.from_raw_data(raw) for raw in page.get("Items", [])]
    last = page.get("LastEvaluatedKey")
    return [item for item in items if isinstance(item, IssueItem)], int(last["n"]["N"]) if last else None


def project_collections(
    *, method: str = "auto", segments: int = 1, on_progress: ProgressCallback | None = None
) -> DistinctKeys:
    """Every project collection of the issues table (the distinct-keys pattern; its report holds the RCU).

    ``auto`` weighs a Scan of the table against a Scan of the sparse ``projects`` index (keys only:
    ≈ 0.5 RCU per 4 KB of keys) and a skip scan (0.5 RCU a collection). The keys are collection keys
    (``<tenant>#<PROJECT>``, ``split_collection_key``).
    """
    return distinct_keys(
        table_name("issues"),
        method=method,
        segments=segments,
        index_name=ProjectsIndex.Meta.index_name,
        on_progress=on_progress,
    )
