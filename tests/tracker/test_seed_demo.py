"""The demo data: the published logins and roles, and projects that read like a team's last weeks of work.

Loaded under a table prefix of this test's own (the demo teams' slugs are fixed, so it must not
share tables with the other tests), with the Django database of the test.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.contrib.auth import authenticate
from django.core.management import call_command
from pytest_django.fixtures import SettingsWrapper

import ddbmodels
from ddbmodels import comments, events, inbox, issues, orders
from ddbmodels.core import connection, tables
from tracker.management.commands.seed_demo import DEMO_PASSWORD, TENANTS, USERS
from tracker.models import Membership
from tracker.services.addresses import address_confirmed


@pytest.fixture
def demo_tables(ddblocal: ddbmodels.DynamoSettings, settings: SettingsWrapper) -> Iterator[str]:
    prefix = f"{ddblocal.table_prefix}demo{uuid.uuid4().hex[:6]}-"
    ddbmodels.configure(table_prefix=prefix)
    settings.DYNAMODB_TABLE_PREFIX = prefix
    tables.create_all()
    try:
        yield prefix
    finally:
        client = connection.client()
        for name in tables.list_table_names():
            if name.startswith(prefix):
                client.delete_table(TableName=name)
        ddbmodels.configure(table_prefix=ddblocal.table_prefix)


def test_the_demo_has_its_logins_teams_and_weeks_of_work(demo_tables: str, db: None) -> None:
    call_command("seed_demo")

    for username, (staff, roles) in USERS.items():
        user = authenticate(username=username, password=DEMO_PASSWORD)
        assert user is not None, username
        assert user.is_staff is staff
        assert {m.tenant.slug: m.role for m in Membership.objects.filter(user=user)} == roles
        assert address_confirmed(user=user) == f"{username}@example.com"  # the demo's e-mails reach them

    for slug, (_, projects) in TENANTS.items():
        assert sorted(issues.project_keys(tenant=slug)) == sorted(projects)
        for key, (_, count) in projects.items():
            assert issues.issue_number_next(tenant=slug, project_key=key) == count + 1

    web_open = issues.status_list(tenant="acme", project_key="WEB", status="open")
    web_closed = issues.status_list(tenant="acme", project_key="WEB", status="closed")
    assert 3 <= len(web_open.issues) <= 25  # a real backlog: some open, most done
    assert len(web_closed.issues) == 25  # a full page: many done over the weeks
    board = issues.board_columns(tenant="acme", project_key="WEB")  # worth looking at: ≥ 4 in each working column
    assert min(len(board[status].issues) for status in ("open", "in_progress", "resolved")) >= 4
    assert issues.label_list(tenant="acme", label="bug", status="open").issues
    # search is the search engine's now (tracker/search), not a DynamoDB list: its demo tests are there
    assert issues.status_list(tenant="acme", assignee="bob", status="closed").issues

    titles = {issue.title for issue in web_closed.issues + web_open.issues}
    assert len(titles) > 10  # different work, not one title over and over
    said = [c for n in range(1, 30) for c in comments.comment_page(stream=f"acme#WEB#{n}").comments]
    assert len(said) >= 10
    assert any("@" in c.body for c in said)
    history = events.stream_events(stream="acme#WEB#1", limit=50)
    assert history[-1].kind == "issue.created"  # newest first: the oldest is the opening
    assert len({e.at.date() for n in range(1, 120, 7) for e in events.stream_events(stream=f"acme#WEB#{n}")}) > 7
    assert inbox.head_get(tenant="acme", username="alice").unread > 0

    placed = orders.orders_oldest(limit=200, shards=settings.ORDER_SHARDS)  # every team's, oldest first
    assert len(placed) == sum(count // 10 for _, projects in TENANTS.values() for _, count in projects.values())
    assert [int(o.number) for o in placed] == list(range(1, len(placed) + 1))  # numbers follow the dates
    now = datetime.now(UTC)
    statuses = {o.status for o in placed}
    assert {"pending", "fulfilled"} <= statuses
    assert len(statuses) >= 3  # paid or cancelled too, not all pending
    for order in placed:
        age = now - order.placed_at
        if order.status == "fulfilled":
            assert age > timedelta(days=2), order.number  # fulfilment takes days
        if order.status == "pending":
            assert age < timedelta(days=21), order.number  # nobody leaves an order pending for months

    call_command("seed_demo")  # a second start leaves it alone
    assert issues.issue_number_next(tenant="acme", project_key="WEB") == TENANTS["acme"][1]["WEB"][1] + 1
