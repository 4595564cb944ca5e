"""Helpers for the ddbmodels tests: a tenant slug nobody else uses, projects and issues on demand.

DynamoDB Local keeps its data for the whole session, so every test works in its own tenant.
The helpers use whatever the models point at (moto or DynamoDB Local), so a test asks for
``moto_ddb`` or carries ``@pytest.mark.ddblocal`` first.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from ddbmodels import issues
from ddbmodels.issues.model import IssueItem, ProjectItem

REPORTER = "user-1"


def unique_tenant() -> str:
    """A tenant slug (``t-<12 hex>``) unique to the caller."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def tenant() -> str:
    return unique_tenant()


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


def load(tenant: str, number: int, key: str = "WEB") -> IssueItem:
    """A fresh, strongly consistent copy of an issue (fails the test when it is missing)."""
    issue = issues.issue_get(tenant=tenant, project_key=key, number=number, consistent=True)
    assert issue is not None, f"issue {key}-{number} of {tenant} is missing"
    return issue
