"""Staff "Tracker views" in the admin: tenants, projects, issues, orders, attachments in flight, leaderboards."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import attachments, issues, scores
from ddbmodels import issues as ddb_projects
from ddbmodels.orders import OrderItem
from tests.tracker.attachment_helpers import begin_attach
from tests.tracker.conftest import WorkerFactory, World
from tests.tracker.helpers import flash, new_issue, staff_client, text, wait_for_job
from tests.tracker.orders_helpers import new_order
from tracker import tasks
from tracker.models import Membership, Tenant
from tracker.selectors.orders import staff_order_find
from tracker.services import orders as order_services

BASE = "/admin/ddb/tracker/"
ORDERS = f"{BASE}orders/"
ATTACHMENTS = f"{BASE}attachments/"
TENANTS = f"{BASE}t/"


# ------------------------------------------------------------------------------------------ helpers


@pytest.fixture
def staff() -> Client:
    """Staff without tracker.change_tenant: every page is readable, nothing may be started."""
    return staff_client("staff-reader")


@pytest.fixture
def operator() -> Client:
    return staff_client("staff-operator", may_change=True)


def get_ok(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return text(response)


def issue_rows(page: str) -> list[tuple[int, str, str, int]]:
    """(number, title, status, version) of every issue row, in display order."""
    rows = re.findall(
        r'<tr class="issue" data-number="(\d+)">.*?<td class="issue-title">(.*?)</td>\s*'
        r'<td class="issue-status">(.*?)</td>.*?<td class="issue-version">(\d+)</td>',
        page,
        re.S,
    )
    return [(int(n), html.unescape(t), s, int(v)) for n, t, s, v in rows]


def order_numbers(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr class="order" data-number="(\d+)">', page)]


def pager(page: str, rel: str) -> str | None:
    match = re.search(rf'href="([^"]+)" id="{rel}-page"', page)
    return html.unescape(match.group(1)) if match else None


def item_links(page: str) -> list[str]:
    return [html.unescape(u) for u in re.findall(r'href="(/admin/ddb/tables/[^"/]+/item/\?key=[^"]+)"', page)]


def attachment_rows(page: str) -> dict[str, str]:
    """attachment id → the row's HTML."""
    return dict(re.findall(r'<tr class="attachment[^"]*" id="attachment-([0-9A-Z]+)">(.*?)</tr>', page, re.S))


def place_order(world: World, product: str = "seats", quantity: int = 3) -> OrderItem:
    """An order through the orders service, as the world's member places it."""
    membership = Membership.objects.select_related("tenant", "user").get(user=world.member, tenant=world.tenant)
    return order_services.order_place(membership=membership, product=product, quantity=quantity, delivery="standard")


# ------------------------------------------------------------------------------------------ access


def all_urls(world: World) -> list[str]:
    return [
        BASE,
        f"{TENANTS}{world.slug}/",
        f"{TENANTS}{world.slug}/WEB/",
        f"{TENANTS}{world.slug}/leaderboard/",
        ORDERS,
        ATTACHMENTS,
    ]


def test_anonymous_visitors_are_sent_to_the_admin_login(client: Client, world: World) -> None:
    for url in all_urls(world):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/?next="), url


def test_non_staff_users_are_sent_to_the_admin_login(world: World) -> None:
    client = world.client_for(world.owner)  # owner of the tenant, but not staff
    for url in all_urls(world):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/?next="), url
    with mock.patch.object(tasks.reconcile_attachments, "delay") as delay:
        assert client.post(ATTACHMENTS).status_code == 302
    delay.assert_not_called()


def test_read_only_staff_can_read_every_page_and_each_shows_the_capacity_footer(staff: Client, world: World) -> None:
    for url in all_urls(world):
        page = get_ok(staff, url)
        assert "DynamoDB used by this page so far" in page, url


def test_the_admin_index_links_to_the_tracker_views(staff: Client) -> None:
    page = get_ok(staff, "/admin/")
    for url in (BASE, ORDERS, ATTACHMENTS):
        assert f'href="{url}"' in page
    assert 'href="/admin/ddb/jobs/"' in page  # the links that were there stay


# ------------------------------------------------------------------------------------------ tenants


def test_the_overview_lists_every_tenant_with_links_to_its_pages(
    staff: Client, world: World, other_world: World
) -> None:
    page = get_ok(staff, BASE)
    for w in (world, other_world):
        row = re.search(rf'<tr id="tenant-{w.slug}">(.*?)</tr>', page, re.S)
        assert row, w.slug
        cells = row.group(1)
        assert w.tenant.name in cells
        assert f'href="{TENANTS}{w.slug}/"' in cells
        assert f'href="{ORDERS}?tenant={w.slug}"' in cells
        assert f'href="{ATTACHMENTS}?tenant={w.slug}"' in cells
        assert f'href="{TENANTS}{w.slug}/leaderboard/"' in cells
        assert "<td>3</td>" in cells  # owner, member, viewer
    assert "Home</a> › Tracker</div>" in page


def test_a_tenant_page_lists_its_own_projects_only(staff: Client, world: World, other_world: World) -> None:
    ddb_projects.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    ddb_projects.project_create(tenant=other_world.slug, key="OPS", name="Operations", created_by="someone")
    ddb_projects.project_counts_refresh(tenant=world.slug, key="WEB")
    new_issue(world, "Counted")  # counts are the job's, refreshed after writes: still 0 until it runs
    page = get_ok(staff, f"{TENANTS}{world.slug}/")
    assert re.findall(r'<tr id="project-([A-Z0-9]+)">', page) == ["API", "WEB"]
    assert "Public API" in page
    assert "Website" in page
    assert "OPS" not in page
    assert "Operations" not in page
    assert f'href="{TENANTS}{world.slug}/API/"' in page
    web = re.search(r'<tr id="project-WEB">(.*?)</tr>', page, re.S)
    api = re.search(r'<tr id="project-API">(.*?)</tr>', page, re.S)
    assert web
    assert api
    assert '<td class="project-total">0</td>' in web.group(1)
    assert '<td class="project-total">0</td>' in api.group(1)  # a new project is counted at creation
    crumbs = f'<a href="/admin/">Home</a> › <a href="{BASE}">Tracker</a> › {world.tenant.name}</div>'
    assert crumbs in page
    other = get_ok(staff, f"{TENANTS}{other_world.slug}/")
    assert re.findall(r'<tr id="project-([A-Z0-9]+)">', other) == ["OPS", "WEB"]
    assert "Public API" not in other


def test_unknown_tenants_and_projects_are_404s(staff: Client, world: World, other_world: World) -> None:
    ddb_projects.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    assert staff.get(f"{TENANTS}no-such-tenant/").status_code == 404
    assert staff.get(f"{TENANTS}no-such-tenant/WEB/").status_code == 404
    assert staff.get(f"{TENANTS}no-such-tenant/leaderboard/").status_code == 404
    assert staff.get(f"{TENANTS}{world.slug}/NOPE/").status_code == 404
    assert staff.get(f"{TENANTS}{world.slug}/web/").status_code == 404  # not a project key
    assert staff.get(f"{TENANTS}{other_world.slug}/API/").status_code == 404  # the other tenant's project
    assert staff.get(f"{TENANTS}{world.slug}/API/").status_code == 200


# ------------------------------------------------------------------------------------------ issues


def test_a_project_page_shows_its_issues_with_number_title_status_version(
    staff: Client, world: World, other_world: World
) -> None:
    new_issue(world, "Fix the login page")
    second = new_issue(world, "Write the docs")
    issues.issue_change_status(second, to="resolved")
    new_issue(other_world, "The other tenant's secret")
    page = get_ok(staff, f"{TENANTS}{world.slug}/WEB/")
    assert issue_rows(page) == [(2, "Write the docs", "Resolved", 2), (1, "Fix the login page", "Open", 1)]
    assert "The other tenant&#x27;s secret" not in page
    assert "secret" not in page
    assert '<strong id="next-number">WEB-3</strong>' in page
    crumbs = f'<a href="{BASE}">Tracker</a> › <a href="{TENANTS}{world.slug}/">{world.tenant.name}</a> › WEB</div>'
    assert crumbs in page
    other = get_ok(staff, f"{TENANTS}{other_world.slug}/WEB/")
    assert issue_rows(other) == [(1, "The other tenant's secret", "Open", 1)]


def test_the_status_filter_keeps_the_matching_issues(staff: Client, world: World) -> None:
    new_issue(world, "Still open")
    issues.issue_change_status(new_issue(world, "Done already"), to="resolved")
    page = get_ok(staff, f"{TENANTS}{world.slug}/WEB/?status=resolved")
    assert [row[1] for row in issue_rows(page)] == ["Done already"]
    page = get_ok(staff, f"{TENANTS}{world.slug}/WEB/?status=open")
    assert [row[1] for row in issue_rows(page)] == ["Still open"]
    assert staff.get(f"{TENANTS}{world.slug}/WEB/?status=sideways").status_code == 400


def test_each_issue_links_to_its_item_in_the_item_browser(staff: Client, world: World) -> None:
    new_issue(world, "Open me in the browser")
    page = get_ok(staff, f"{TENANTS}{world.slug}/WEB/")
    links = item_links(page)
    assert len(links) == 2  # the project's static item, then the issue
    item_page = get_ok(staff, links[1])
    assert "Open me in the browser" in item_page
    assert f"{world.slug}#WEB" in item_page
    assert "Website" in get_ok(staff, links[0])


def test_the_next_page_shows_the_next_issues_and_a_tampered_cursor_is_a_400(staff: Client, world: World) -> None:
    for n in range(1, 28):
        new_issue(world, f"Issue number {n}")
    first = get_ok(staff, f"{TENANTS}{world.slug}/WEB/")
    assert [row[0] for row in issue_rows(first)] == list(range(27, 2, -1))
    assert pager(first, "previous") is None
    next_url = pager(first, "next")
    assert next_url
    second = get_ok(staff, f"{TENANTS}{world.slug}/WEB/{next_url}")
    assert [(row[0], row[1]) for row in issue_rows(second)] == [(2, "Issue number 2"), (1, "Issue number 1")]
    assert pager(second, "next") is None
    back = pager(second, "previous")
    assert back
    assert [row[0] for row in issue_rows(get_ok(staff, f"{TENANTS}{world.slug}/WEB/{back}"))] == list(range(27, 2, -1))

    cursor = next_url.split("cursor=", 1)[1]
    tampered = cursor[:-3] + ("AAA" if not cursor.endswith("AAA") else "BBB")
    response = staff.get(f"{TENANTS}{world.slug}/WEB/?cursor={tampered}")
    assert response.status_code == 400
    assert 'id="bad-request"' in text(response)
    # A cursor of the unfiltered list is not a cursor of the "open" list.
    assert staff.get(f"{TENANTS}{world.slug}/WEB/?status=open&cursor={cursor}").status_code == 400


def test_a_cursor_of_another_tenants_project_is_a_400(staff: Client, world: World, other_world: World) -> None:
    for n in range(1, 27):
        new_issue(world, f"Issue {n}")
    next_url = pager(get_ok(staff, f"{TENANTS}{world.slug}/WEB/"), "next")
    assert next_url
    assert staff.get(f"{TENANTS}{other_world.slug}/WEB/{next_url}").status_code == 400


# ------------------------------------------------------------------------------------------ orders


def test_the_latest_orders_of_every_tenant_and_one_tenants_orders(
    staff: Client, world: World, other_world: World
) -> None:
    mine = [place_order(world, quantity=q) for q in (1, 2)]
    theirs = place_order(other_world, product="storage", quantity=40)
    page = get_ok(staff, ORDERS)
    shown = order_numbers(page)
    expected = [theirs, mine[1], mine[0]]  # newest first
    assert [n for n in shown if n in {int(o.number) for o in expected}] == [int(o.number) for o in expected]
    row = re.search(rf'<tr class="order" data-number="{int(theirs.number)}">(.*?)</tr>', page, re.S)
    assert row
    assert f'href="{TENANTS}{other_world.slug}/"' in row.group(1)
    assert "<td>40</td>" in row.group(1)
    assert "Orders of all tenants: Latest 100" in page

    only_mine = get_ok(staff, f"{ORDERS}?tenant={world.slug}")
    assert order_numbers(only_mine) == [int(mine[1].number), int(mine[0].number)]
    assert f"Orders of {world.tenant.name}: All time" in only_mine
    only_theirs = get_ok(staff, f"{ORDERS}?tenant={other_world.slug}")
    assert order_numbers(only_theirs) == [int(theirs.number)]


def test_ranges_and_dates_select_orders_by_time(staff: Client, world: World) -> None:
    old = new_order(world, when=datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC))
    recent = place_order(world)
    week = order_numbers(get_ok(staff, f"{ORDERS}?range=7d"))
    assert int(recent.number) in week
    assert int(old.number) not in week
    dated = order_numbers(get_ok(staff, f"{ORDERS}?from=2001-02-03&to=2001-02-03"))
    assert int(old.number) in dated
    assert int(recent.number) not in dated
    oldest = order_numbers(get_ok(staff, f"{ORDERS}?range=oldest"))
    assert int(old.number) in oldest
    assert order_numbers(get_ok(staff, f"{ORDERS}?tenant={world.slug}&range=24h")) == [int(recent.number)]


def test_bad_order_filters_are_form_errors(staff: Client, world: World) -> None:
    for query in (
        "range=forever",
        "tenant=no-such-tenant",
        f"tenant={world.slug}&range=oldest",
        "from=2001-02-05&to=2001-02-01",
        "range=7d&from=2001-02-01",
    ):
        response = staff.get(f"{ORDERS}?{query}")
        assert response.status_code == 400, query
        assert "errorlist" in text(response), query
        assert order_numbers(text(response)) == [], query


def test_a_tampered_cursor_of_a_tenants_orders_is_a_400(staff: Client, world: World) -> None:
    response = staff.get(f"{ORDERS}?tenant={world.slug}&cursor=not-a-cursor")
    assert response.status_code == 400
    assert "This page link is invalid." in text(response)


def test_finding_an_order_by_number(staff: Client, world: World, other_world: World) -> None:
    place_order(world)
    order = place_order(other_world, product="support_hours", quantity=12)
    response = staff.get(f"{ORDERS}?number={int(order.number)}")
    assert response.status_code == 200
    found = re.search(r'<div class="module" id="order-found">(.*?)</div>', text(response), re.S)
    assert found
    assert f"Order #{int(order.number)}" in found.group(1)
    assert f'href="{TENANTS}{other_world.slug}/"' in found.group(1)
    assert "12 × Support hours" in found.group(1)
    assert item_links(found.group(1))

    missing = staff.get(f"{ORDERS}?number=999999999999")
    assert missing.status_code == 200
    assert 'id="order-found"' not in text(missing)
    assert flash(missing) == ["There is no order #999999999999 (of any tenant)."]
    assert "There is no order #999999999999" in text(missing)

    for bad in ("abc", "0", "-4", "10000000000000000"):
        invalid = staff.get(f"{ORDERS}?number={bad}")
        assert invalid.status_code == 400, bad
        assert "errorlist" in text(invalid), bad
        assert 'id="order-found"' not in text(invalid), bad


def test_staff_who_may_change_data_mark_an_order_paid_then_fulfilled(
    staff: Client, operator: Client, world: World
) -> None:
    # The seller's steps (issue 20): taken here by staff, no longer by the customer's owners.
    order = place_order(world)
    number = int(order.number)
    status_url = f"{ORDERS}{number}/status/"
    page = get_ok(operator, f"{ORDERS}?number={number}")
    assert re.findall(r'name="to" value="(\w+)"', page) == ["paid", "cancelled"]
    assert "Mark paid</button>" in page
    assert 'id="order-status"' not in get_ok(staff, f"{ORDERS}?number={number}")  # read-only staff: no buttons
    assert staff.post(status_url, {"to": "paid"}).status_code == 403
    assert staff_order_find(number=number).status == "pending"  # type: ignore[union-attr]

    response = operator.post(status_url, {"to": "paid"})
    assert response.status_code == 302
    assert response["Location"] == f"{ORDERS}?number={number}"
    assert flash(response) == [f"Order #{number} ({world.slug}) is now Paid."]
    assert operator.post(status_url, {"to": "fulfilled"}).status_code == 302
    stored = staff_order_find(number=number)
    assert stored is not None
    assert (stored.status, stored.updated_by) == ("fulfilled", "staff-operator")
    assert 'id="order-status"' not in get_ok(operator, f"{ORDERS}?number={number}")

    assert operator.post(status_url, {"to": "cancelled"}).status_code == 409  # fulfilled: no further step
    assert operator.post(status_url, {"to": "refunded"}).status_code == 400
    assert operator.post(f"{ORDERS}999999999999/status/", {"to": "paid"}).status_code == 404
    assert operator.get(status_url).status_code == 405


# ------------------------------------------------------------------------------------------ attachments


def test_attachments_in_flight_with_their_age_and_tenant(
    staff: Client, world: World, other_world: World, settings: SettingsWrapper
) -> None:
    settings.ATTACHMENT_STUCK_SECONDS = 3600
    new_issue(world)
    new_issue(other_world)
    mine = begin_attach(world, "mine-in-flight.txt")
    done = begin_attach(world, "finished.txt")
    attachments.attachment_complete(done)
    theirs = begin_attach(other_world, "theirs-in-flight.txt")

    rows = attachment_rows(get_ok(staff, ATTACHMENTS))
    assert mine.attachment_id in rows
    assert theirs.attachment_id in rows
    assert done.attachment_id not in rows  # Attached: out of the sparse index
    row = rows[mine.attachment_id]
    assert "mine-in-flight.txt" in row
    assert "Attaching" in row
    assert f'href="{TENANTS}{world.slug}/WEB/">WEB-1</a>' in row
    assert re.search(r'<td class="age">\d+ s</td>', row)  # seconds old, not stuck
    assert item_links(row)

    only_mine = attachment_rows(get_ok(staff, f"{ATTACHMENTS}?tenant={world.slug}"))
    assert list(only_mine) == [mine.attachment_id]
    assert staff.get(f"{ATTACHMENTS}?tenant=no-such-tenant").status_code == 404

    settings.ATTACHMENT_STUCK_SECONDS = 0
    stuck = attachment_rows(get_ok(staff, f"{ATTACHMENTS}?tenant={world.slug}"))
    assert "<strong>stuck</strong>" in stuck[mine.attachment_id]


def test_read_only_staff_cannot_reconcile(staff: Client) -> None:
    page = get_ok(staff, ATTACHMENTS)
    assert "Read only" in page
    assert 'value="Reconcile now"' not in page
    with mock.patch.object(tasks.reconcile_attachments, "delay") as delay:
        response = staff.post(ATTACHMENTS)
    assert response.status_code == 403
    delay.assert_not_called()


def test_reconcile_now_queues_the_task_and_opens_its_job_page(operator: Client) -> None:
    page = get_ok(operator, ATTACHMENTS)
    assert 'value="Reconcile now"' in page
    assert "Read only" not in page
    queued = uuid.uuid4()
    with mock.patch.object(tasks.reconcile_attachments, "delay", return_value=mock.Mock(id=str(queued))) as delay:
        response = operator.post(ATTACHMENTS)
    delay.assert_called_once_with()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/ddb/jobs/{queued}/"
    assert flash(response) == [f"Reconcile attachments: queued as {queued}."]


@pytest.mark.slow
def test_reconcile_now_runs_on_a_real_worker_to_success(
    operator: Client, start_worker: WorkerFactory, tmp_path: Path
) -> None:
    start_worker(MEDIA_ROOT=str(tmp_path / "media"))
    response = operator.post(ATTACHMENTS)
    assert response.status_code == 302
    task_id = response["Location"].rstrip("/").rsplit("/", 1)[1]
    assert response["Location"] == f"/admin/ddb/jobs/{uuid.UUID(task_id)}/"
    status = wait_for_job(operator, task_id)
    assert status["state"] == "SUCCESS", status
    assert status["result"]["job"] == "reconcile_attachments"


# ------------------------------------------------------------------------------------------ leaderboard


def leaderboard(page: str) -> list[tuple[int, str, int]]:
    rows = re.findall(
        r'<td class="place">(\d+)</td><th scope="row" class="member">([^<]+)</th><td class="points">(-?\d+)</td>', page
    )
    return [(int(place), member, int(points)) for place, member, points in rows]


def test_a_tenants_leaderboard_shows_its_top_members_only(staff: Client, world: World, other_world: World) -> None:
    for username, points in (("ann", 7), ("ben", 3), ("cat", 7)):
        scores.score_add(tenant=world.slug, username=username, points=points)
    scores.score_add(tenant=other_world.slug, username="outsider", points=100)
    page = get_ok(staff, f"{TENANTS}{world.slug}/leaderboard/")
    assert leaderboard(page) == [(1, "ann", 7), (1, "cat", 7), (3, "ben", 3)]  # ties share a place
    assert "outsider" not in page
    assert leaderboard(get_ok(staff, f"{TENANTS}{world.slug}/leaderboard/?top=50")) == leaderboard(page)
    assert leaderboard(get_ok(staff, f"{TENANTS}{other_world.slug}/leaderboard/")) == [(1, "outsider", 100)]
    assert staff.get(f"{TENANTS}{world.slug}/leaderboard/?top=7").status_code == 400


def test_the_pages_answer_get_only_except_the_reconcile_post(operator: Client, world: World) -> None:
    for url in all_urls(world):
        if url != ATTACHMENTS:
            assert operator.post(url).status_code == 405, url


def test_a_tenant_named_like_a_fixed_page_still_has_its_pages(staff: Client) -> None:
    tenant = Tenant.objects.create(slug="orders", name="Orders Ltd")
    page = staff.get(f"{TENANTS}orders/")
    assert page.status_code == 200
    assert tenant.name in page.content.decode()
    assert f'href="/admin/tracker/tenant/{tenant.pk}/change/"' in page.content.decode()
