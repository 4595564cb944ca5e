"""The API's list page at its largest (``limit=100``, ``bench/patterns.py``): still one Query of one list index.

``GET /api/v1/teams/{team}/projects/{key}/issues?limit=100`` is ``issues.status_list(size=100)``: the pages'
Query with ``Limit 101`` (the one more tells whether a next page exists). A project of its own gets
``SHOWN + 1`` open issues, bulk-written unmetered; the floor is worked out from the entries the Query must
read, sized by DynamoDB's rules from the items read back unmetered (the index's keys and its INCLUDE
projection: ``LIST_ATTRIBUTES`` and the update time), never from the answer it judges. Kept in a module of
their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ddbmodels import issues
from ddbmodels.core import connection
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem, collection_key
from ddbmodels.issues.indexes import LIST_ATTRIBUTES
from devtools import bench
from devtools.bench import Cost, read_units
from pattern_rows.rows import ROWS, Row
from pattern_rows.workload import TENANT, Workload

PROJECT = "APL"  # the API's list: a project of its own, so the other rows' issues and counts stay as they were
SHOWN = 100  # the API's largest page (tracker.api.routers.issue_reads.LIMIT_MAX)
STORED = SHOWN + 5  # more than a page: the Query stops at its Limit, it does not read the project


def entries_read(_page: Any, size: int) -> Cost:
    """One Query: 0.5 RCU per started 4 KB of the entries it reads (eventually consistent)."""
    return Cost(read_units(size), 0, 1)


API_LIST_ROWS: dict[str, Row] = {
    "issues.list (limit 100)": Row(
        "Query of the project_status_number index, Limit 101 (the API's largest page and the one more that tells "
        "whether a next page exists): 0.5 RCU per started 4 KB of the 101 entries read (≈ 150–300 B each: ≤ 4 RCU), "
        "whatever the project's size",
        entries_read,
    ),
}
ROWS.update(API_LIST_ROWS)


def newest_entries_size(count: int) -> int:
    """The stored size of the newest ``count`` open issues' project_status_number entries (read unmetered)."""
    client, table = connection.client(), connection.table_name("issues")
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "pk = :p AND n > :z",
        "ExpressionAttributeValues": {":p": {"S": collection_key(TENANT, PROJECT)}, ":z": {"N": "0"}},
        "ScanIndexForward": False,
        "Limit": count,
    }
    items = bench.unmetered(lambda: client.query(**request))["Items"]
    projected = [*LIST_ATTRIBUTES, "ua"]
    entries = [bench.index_entry(item, ("pk", "n"), ("xs", "n"), projected) for item in items]
    return sum(bench.item_size(entry) for entry in entries if entry is not None)


def run_api_lists(run: Workload) -> None:
    """An API page of 100 rows of a project of more: one Query, at its floor."""
    now = utcnow()
    bench.unmetered(lambda: issues.project_create(tenant=TENANT, key=PROJECT, name="API lists", created_by="bench"))
    stored = [
        IssueItem(
            pk=collection_key(TENANT, PROJECT),
            number=n,
            title=f"Listed by the API, number {n}",
            status="open",
            priority="medium",
            reporter="bench",
            assignee=f"dev{n % 4}" if n % 3 else None,
            created_at=now - timedelta(minutes=STORED - n),
            updated_at=now - timedelta(minutes=STORED - n),
        )
        for n in range(1, STORED + 1)
    ]
    bench.unmetered(lambda: issues.issues_put_many(stored))
    size = newest_entries_size(SHOWN + 1)
    page = run(
        "issues.list (limit 100)",
        issues.status_list,
        tenant=TENANT,
        project_key=PROJECT,
        status="open",
        size=SHOWN,
        basis=size,
    )
    numbers = [int(issue.number) for issue in page.issues]
    bench.check(numbers == list(range(STORED, STORED - SHOWN, -1)), f"the page is not the newest {SHOWN}: {numbers}")
    bench.check(page.next_key is not None, "a page of 100 of 105 open issues has no next page")
