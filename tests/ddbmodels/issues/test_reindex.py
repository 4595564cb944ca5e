"""Upgrading an install whose issues predate the list indexes: create_all adds them, reindex fills them."""

from __future__ import annotations

import pytest

from ddbmodels import issues
from ddbmodels.core import connection, tables
from ddbmodels.issues.model import CollectionItem, IssueItem, ProjectItem, collection_key
from ddbmodels.labels import LabelEntry

pytestmark = pytest.mark.ddblocal

LIST_INDEXES = {"project_status_number", "project_status_updated", "team_status", "assignee_status", "milestone_status"}


def _old_issues_table() -> None:
    """The issues table as it was before the list indexes: keys and the ``projects`` index only."""
    connection.client().create_table(
        TableName=CollectionItem.Meta.table_name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": kind}
            for name, kind in (("pk", "S"), ("n", "N"), ("gt", "S"), ("gk", "S"))
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "projects",
                "KeySchema": [{"AttributeName": "gt", "KeyType": "HASH"}, {"AttributeName": "gk", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )
    tables.wait_active(CollectionItem.Meta.table_name)


def test_create_all_adds_the_missing_indexes_and_reindex_fills_them_once(own_prefix: str) -> None:
    _old_issues_table()
    LabelEntry.create_table(billing_mode="PAY_PER_REQUEST", wait=True)
    ProjectItem(
        pk=collection_key("acme", "WEB"), number=0, name="Web", created_by="x", gsi_tenant="acme", gsi_project_key="WEB"
    ).save()
    for n, status in ((1, "open"), (2, "closed"), (3, "open")):
        # written the old way: no list-index keys, no entries
        IssueItem(
            pk=collection_key("acme", "WEB"),
            number=n,
            title=f"old issue {n}",
            status=status,
            reporter="x",
            assignee="alice" if n == 3 else None,
            labels={"bug"} if n != 2 else None,
        ).save()

    reports = {report.base: report for report in tables.create_all()}
    assert set(reports["issues"].indexes_added) == LIST_INDEXES
    assert reports["issues"].created is False
    described = tables.describe_table(CollectionItem.Meta.table_name)
    assert described is not None
    assert {i["IndexName"] for i in described["GlobalSecondaryIndexes"]} == LIST_INDEXES | {"projects"}
    assert issues.status_list(tenant="acme", project_key="WEB", status="open").issues == []

    first = issues.project_reindex(tenant="acme", project_key="WEB")
    assert (first.issues, first.keys_set) == (3, 3)
    assert first.entries == 2  # the label entries of bug on 1 and 3 (words are the search engine's, not DynamoDB's)
    refs = [i.reference for i in issues.status_list(tenant="acme", project_key="WEB", status="open").issues]
    assert refs == ["WEB-3", "WEB-1"]
    assert [i.reference for i in issues.status_list(tenant="acme", assignee="alice", status="open").issues] == ["WEB-3"]
    assert [i.reference for i in issues.label_list(tenant="acme", label="bug", status="open").issues] == [
        "WEB-3",
        "WEB-1",
    ]
    again = issues.project_reindex(tenant="acme", project_key="WEB")
    assert again.keys_set == 0
    assert tables.create_all()[0].indexes_added == ()
