"""Fixtures of the ddbmodels tests: a tenant slug nobody else uses, projects and issues on demand.

DynamoDB Local keeps its data for the whole session, so every test works in its own tenant
(``tenant``), or under a table prefix of its own when it makes tables (``own_prefix``). The
fixtures use whatever the models point at (moto or DynamoDB Local), so a test asks for
``moto_ddb`` or carries ``@pytest.mark.ddblocal`` first.

The folders mirror ddbmodels: ``core/``, ``patterns/``, then one per table package; helpers a
folder's tests share sit beside them (``attachments/helpers.py``, ``orders/helpers.py``), and
``processes.py`` runs writers in several processes for the tests under contention.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

import ddbmodels
from ddbmodels import issues
from ddbmodels.core import connection
from ddbmodels.issues.model import IssueItem, ProjectItem

REPORTER = "user-1"


def unique_tenant() -> str:
    """A tenant slug (``t-<12 hex>``) unique to the caller."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def tenant() -> str:
    return unique_tenant()


@pytest.fixture
def own_prefix(ddblocal: ddbmodels.DynamoSettings) -> Iterator[str]:
    """A table prefix for this test alone (tables made on demand land under it); dropped afterwards."""
    prefix = f"{ddblocal.table_prefix}own{uuid.uuid4().hex[:8]}-"
    ddbmodels.configure(table_prefix=prefix)
    try:
        yield prefix
    finally:
        client = connection.client()
        for name in client.list_tables(Limit=100)["TableNames"]:
            if name.startswith(prefix):
                client.delete_table(TableName=name)
        ddbmodels.configure(table_prefix=ddblocal.table_prefix)


@pytest.fixture
def make_project(tenant: str) -> Callable[..., ProjectItem]:
    """Create a project of the test's tenant (key ``WEB`` unless told otherwise)."""

    def make(key: str = "WEB", *, name: str | None = None, of_tenant: str | None = None) -> ProjectItem:
        return issues.project_create(
            tenant=of_tenant or tenant, key=key, name=name or f"Project {key}", created_by=REPORTER
        )

    return make


@pytest.fixture
def make_issues(tenant: str) -> Callable[..., list[IssueItem]]:
    """Create ``count`` issues in a project of the test's tenant; returns them in number order."""

    def make(count: int, key: str = "WEB", **fields: object) -> list[IssueItem]:
        created = []
        for i in range(count):
            claimed = issues.issue_create(
                tenant=tenant, project_key=key, title=f"issue {i + 1}", reporter=REPORTER, **fields
            )
            created.append(claimed.item)
        return created

    return make


@pytest.fixture
def web_project(make_project: Callable[..., ProjectItem]) -> ProjectItem:
    """Project ``WEB`` of the test's tenant, without issues."""
    return make_project()


@pytest.fixture
def web_issues(
    make_project: Callable[..., ProjectItem], make_issues: Callable[..., list[IssueItem]]
) -> Callable[..., list[IssueItem]]:
    """Create project ``WEB`` of the test's tenant, then ``count`` issues in it (``make_issues``'s arguments)."""

    def make(count: int, **fields: object) -> list[IssueItem]:
        make_project()
        return make_issues(count, **fields)

    return make


Copies = tuple[IssueItem, IssueItem]


@pytest.fixture
def two_copies(tenant: str, web_issues: Callable[..., list[IssueItem]]) -> Copies:
    """Two copies of WEB-1, just created, read before either changes it: one of them will go stale."""
    web_issues(1)
    return load(tenant, 1), load(tenant, 1)


def load(tenant: str, number: int, key: str = "WEB") -> IssueItem:
    """A fresh, strongly consistent copy of an issue (fails the test when it is missing)."""
    issue = issues.issue_get(tenant=tenant, project_key=key, number=number, consistent=True)
    assert issue is not None, f"issue {key}-{number} of {tenant} is missing"
    return issue
