"""The workload of projects, issues and orders (``bench/patterns.py``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from ddbmodels import issues as ddb_issues
from ddbmodels import orders
from ddbmodels.issues import PRIORITIES, CollectionItem, IssueItem, collection_key
from ddbmodels.orders import OrderItem
from devtools import bench
from devtools.bench import check
from pattern_rows.issue_writes import IssueWrite
from pattern_rows.rows import Paged, kept_pages, orders_by_shard
from pattern_rows.workload import ASSIGNEES, AWARDED, CUSTOMERS, PAGE_SIZE, PROJECT, TENANT, Workload

KEYED = 2  # creates per kind made with an idempotency key, as the web makes them (their own rows)


def collection() -> list[IssueItem]:
    """The project's issues as stored now, newest first (read outside every meter)."""

    def read() -> list[IssueItem]:
        found = CollectionItem.query(collection_key(TENANT, PROJECT), CollectionItem.number > 0, consistent_read=True)
        return sorted((i for i in found if isinstance(i, IssueItem)), key=lambda i: -int(i.number))

    return bench.unmetered(read)


def run_projects_and_issues(run: Workload, count: int) -> list[IssueItem]:
    run("projects.create", ddb_issues.project_create, tenant=TENANT, key=PROJECT, name="Patterns", created_by="bench")
    issues: list[IssueItem] = []
    for i in range(count):
        keyed = i >= count - KEYED  # the last few as the web creates them: with an idempotency key
        key = uuid.uuid4().hex if keyed else None
        claimed = run(
            "issues.create (idempotency key)" if keyed else "issues.create",
            ddb_issues.issue_create,
            idempotency_key=key,
            basis=IssueWrite(TENANT, PROJECT, idempotency_key=key),
            tenant=TENANT,
            project_key=PROJECT,
            title=f"Issue {i + 1}: measure the access patterns",
            reporter="bench",
            description="Representative text of a short issue.",
            priority=PRIORITIES[i // len(ASSIGNEES) % len(PRIORITIES)],
            assignee=ASSIGNEES[i % len(ASSIGNEES)],
        )
        issues.append(claimed.item)
    check([int(i.number) for i in issues] == list(range(1, count + 1)), "issue numbers are not 1..N")
    for issue in issues:
        got = run(
            "issues.get (eventual)", ddb_issues.issue_get, tenant=TENANT, project_key=PROJECT, number=issue.number
        )
        check(got is not None and got.title == issue.title, f"issue {issue.number} read back wrong")
    for issue in issues[:5]:
        run(
            "issues.get (consistent)",
            ddb_issues.issue_get,
            tenant=TENANT,
            project_key=PROJECT,
            number=issue.number,
            consistent=True,
        )
    for issue in issues[AWARDED : AWARDED + 8]:
        run(
            "issues.update",
            ddb_issues.issue_update,
            issue,
            basis=IssueWrite(TENANT, PROJECT, int(issue.number)),
            title=f"{issue.title} (edited)",
            description="Edited text.",
            priority=issue.priority,
            assignee=issue.assignee,
            labels=["bench"],
        )
    for issue in issues[:AWARDED]:
        basis = IssueWrite(TENANT, PROJECT, int(issue.number))
        run("issues.update", ddb_issues.issue_change_status, issue, to="resolved", basis=basis)
    tombstoned = IssueWrite(TENANT, PROJECT, int(issues[-1].number))
    run("issues.tombstone", ddb_issues.issue_tombstone, issues[-1], by="bench", basis=tombstoned)

    live = lambda issue: issue.deleted_at is None  # noqa: E731
    first = run(
        "issues.page",
        ddb_issues.issue_page,
        tenant=TENANT,
        project_key=PROJECT,
        size=PAGE_SIZE,
        basis=kept_pages(collection(), live, PAGE_SIZE + 1, PAGE_SIZE + 1),
    )
    check(len(first.items) == min(PAGE_SIZE, count - 1), "the first page is not full")
    if first.older_than is not None:
        run(
            "issues.page",
            ddb_issues.issue_page,
            tenant=TENANT,
            project_key=PROJECT,
            size=PAGE_SIZE,
            after=first.older_than,
            basis=kept_pages(
                [i for i in collection() if i.number < first.older_than], live, PAGE_SIZE + 1, PAGE_SIZE + 1
            ),
        )
    resolved = run(
        "issues.page (status filter)",
        ddb_issues.issue_page,
        tenant=TENANT,
        project_key=PROJECT,
        status="resolved",
        size=PAGE_SIZE,
        basis=kept_pages(collection(), lambda i: live(i) and i.status == "resolved", PAGE_SIZE + 1, PAGE_SIZE + 1),
    )
    check(len(resolved.items) == AWARDED, "the status filter did not find the resolved issues")
    numbers = run("issues.numbers", ddb_issues.issue_numbers, tenant=TENANT, project_key=PROJECT, basis=issues)
    check(numbers == list(range(1, count + 1)), "issue numbers (tombstone included) are not 1..N")
    counts = run("projects.refresh_counts", ddb_issues.project_counts_refresh, tenant=TENANT, key=PROJECT, basis=issues)
    check(counts["resolved"] == AWARDED and sum(counts.values()) == count - 1, f"wrong counts {counts}")
    check(run("projects.get", ddb_issues.project_get, tenant=TENANT, key=PROJECT) is not None, "project not found")
    check(len(run("projects.list", ddb_issues.project_list, tenant=TENANT)) == 1, "project list is not one project")
    check((TENANT, PROJECT) in run("projects.enumerate", ddb_issues.all_project_keys), "enumerate missed the project")
    return issues


def run_orders(run: Workload, count: int) -> None:
    placed: list[OrderItem] = []
    for mode in ("atomic", "gapless"):
        for i in range(count):
            keyed = i >= count - KEYED  # the last few as the web places them: with an idempotency key
            claimed = run(
                f"orders.place ({mode}, idempotency key)" if keyed else f"orders.place ({mode})",
                orders.order_place,
                idempotency_key=uuid.uuid4().hex if keyed else None,
                customer=CUSTOMERS[i % len(CUSTOMERS)],
                product="seats",
                quantity=1 + i % 9,
                delivery="standard",
                placed_by="bench",
                mode=mode,
            )
            placed.append(claimed.item)
    check(sorted(int(o.number) for o in placed) == list(range(1, 2 * count + 1)), "order numbers are not 1..N")
    for order in placed:
        got = run("orders.get", orders.order_get, customer=order.customer, placed=order.placed)
        check(got is not None and got.number == order.number, f"order {order.number} read back wrong")
        found = run("orders.find", orders.order_find, number=int(order.number), customer=order.customer)
        check(found is not None and found.placed == order.placed, f"order {order.number} not found by number")
    for order in placed[:4]:
        run("orders.transition", orders.order_transition, order, to="paid", by="bench")
    mine = [o for o in placed if o.customer == CUSTOMERS[0]]
    newest = bench.unmetered(
        lambda: list(OrderItem.query(CUSTOMERS[0], scan_index_forward=False, consistent_read=True))
    )
    read = kept_pages(newest, lambda _: True, PAGE_SIZE + 2, PAGE_SIZE + 2)
    page = run("orders.customer_page", orders.customer_orders_page, customer=CUSTOMERS[0], size=PAGE_SIZE, basis=read)
    check(len(page.items) == min(PAGE_SIZE, len(mine)), "a customer's page is not all their orders")
    now = datetime.now(UTC)
    found = run("orders.range", orders.orders_in_range, since=now - timedelta(days=7), until=now + timedelta(minutes=1))
    check(len(found) == len(placed), "the last 7 days are not every order")
    stored = bench.unmetered(lambda: list(OrderItem.scan(consistent_read=True)))
    for row, fn, newest_first in (
        ("orders.latest", orders.orders_latest, True),
        ("orders.oldest", orders.orders_oldest, False),
    ):
        first_ten = {
            key: sorted(shard, key=lambda o: str(o.placed), reverse=newest_first)[:10]
            for key, shard in orders_by_shard(stored).items()
        }
        found = run(row, fn, limit=10, basis=Paged(first_ten))
        check(len(found) == min(10, len(placed)), f"{row}: {len(found)} orders")
