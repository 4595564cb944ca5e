"""The admin's DynamoDB Tables page: staff only, every table of the app with its indexes."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.contrib.auth.models import Permission, User
from django.test import Client

from ddbmodels import events
from ddbmodels.core import connection
from tests.conftest import FixedClock
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.partition_helpers import provisioned_table

TABLES_URL = "/admin/ddb/tables/"


def staff(username: str, **fields: object) -> User:
    """A staff user who may see DynamoDB data (tracker.view_tenant)."""
    user = User.objects.create_user(username, password="pw-for-tests", is_staff=True, **fields)
    user.user_permissions.add(Permission.objects.get(codename="view_tenant", content_type__app_label="tracker"))
    return user


def test_anonymous_visitors_are_sent_to_the_admin_login(client: Client) -> None:
    response = client.get(TABLES_URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_signed_in_non_staff_users_get_no_tables_page(client: Client, world: World) -> None:
    client.force_login(world.owner)
    for url in (TABLES_URL, f"{TABLES_URL}{connection.table_name('issues')}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_the_tables_page_lists_the_issues_table_with_its_projects_index(client: Client) -> None:
    client.force_login(staff("tables-reader"))
    response = client.get(TABLES_URL)
    assert response.status_code == 200
    page = text(response)
    issues = connection.table_name("issues")
    assert f'id="table-{issues}"' in page
    section = page.split(f'id="table-{issues}"', 1)[1].split('class="module ddb-table"', 1)[0]
    assert "?index=projects" in section
    assert "KEYS_ONLY" in section
    assert "pk (S, HASH)" in section
    assert "n (N, RANGE)" in section
    assert connection.table_name("orders") in page
    assert "Read only" in page  # plain staff: no change permission


def test_a_superuser_sees_no_read_only_notice(client: Client) -> None:
    client.force_login(staff("tables-admin", is_superuser=True))
    page = text(client.get(TABLES_URL))
    assert connection.table_name("issues") in page
    assert "Read only" not in page


def test_an_unknown_table_or_index_is_a_404(client: Client) -> None:
    client.force_login(staff("tables-prober"))
    assert client.get(f"{TABLES_URL}no-such-table/").status_code == 404
    assert client.get(f"{TABLES_URL}{connection.table_name('issues')}/?index=nope").status_code == 404


def test_the_admin_index_links_the_tables_page(client: Client) -> None:
    client.force_login(staff("index-reader"))
    page = text(client.get("/admin/"))
    assert f'href="{TABLES_URL}"' in page


def test_events_tables_show_their_period_and_whether_they_are_hot_or_cold(
    client: Client, fixed_clock: FixedClock
) -> None:
    # The page decides hot or cold by its own clock: fixed, so a month's end cannot pass mid-test.
    current = events.events_table_name("month", fixed_clock(datetime(2031, 3, 15, 12, tzinfo=UTC)))
    old = events.period_table_name("2001-01-02")  # a day period long gone: cold
    for name in (current, old):
        events.create_events_table(name)
    try:
        client.force_login(staff("events-reader"))
        page = text(client.get(TABLES_URL))
        hot_section = page.split(f'id="table-{current}"', 1)[1].split("</table>", 1)[0]
        cold_section = page.split(f'id="table-{old}"', 1)[1].split("</table>", 1)[0]
        assert '<strong class="ddb-state">hot</strong>' in hot_section
        assert '<strong class="ddb-state">cold</strong>' in cold_section
        assert "2001-01-02" in cold_section
        assert 'id="archived-tables"' in page
    finally:
        for name in (current, old):  # other tests' rotation/archive jobs must not see them
            connection.client().delete_table(TableName=name)


def test_each_table_shows_its_partitions_with_what_each_serves_and_burst_explained(client: Client) -> None:
    with provisioned_table(5000, 2000, index_rcu=4000, index_wcu=1000) as name:
        client.force_login(staff("partitions-reader"))
        page = text(client.get(TABLES_URL))
    section = page.split(f'id="table-{name}"', 1)[1].split("</table>", 1)[0]
    assert "About 4 (throughput needs 4, size needs 0); each serves about 1250 RCU and 500 WCU a second" in section
    assert "(burst: about 375000 read and 150000 write units)" in section
    assert "saves up to 5 minutes" not in section  # said once, above the tables
    assert "about 3 partition(s) of its own, 1333 RCU and 333 WCU each" in section  # the GSI: 1.33 + 1 → 3
    assert "ddb-dilution" not in section


def test_on_demand_tables_are_explained_without_a_throughput_share(client: Client) -> None:
    client.force_login(staff("on-demand-reader"))
    page = text(client.get(TABLES_URL))
    issues = connection.table_name("issues")
    section = page.split(f'id="table-{issues}"', 1)[1].split("</table>", 1)[0]
    assert "On demand (PAY_PER_REQUEST)" in section  # the test settings create the app's tables on demand
    assert "About 1 for its size; on demand." in section
    assert "no fixed throughput is shared out" not in section
    assert "burst" not in section


def test_what_partitions_are_is_said_once_above_the_tables_and_their_names_look_like_links(client: Client) -> None:
    client.force_login(staff("once-reader"))
    page = text(client.get(TABLES_URL))
    assert page.count('class="module ddb-table"') >= 10
    for sentence in ("no fixed throughput is shared out", "saves up to 5 minutes (300 s)", "holds about 10 GB"):
        assert page.count(sentence) == 1, sentence
    assert page.index('id="ddb-partitions-note"') < page.index('class="module ddb-table"')
    issues = connection.table_name("issues")
    assert f'<a class="section ddb-table-link" href="/admin/ddb/tables/{issues}/"' in page
    assert "tracker/admin/tables.css" in page


def test_the_sidebar_of_every_admin_page_lists_the_dynamodb_pages(client: Client) -> None:
    client.force_login(staff("sidebar-reader"))
    for url in (TABLES_URL, "/admin/ddb/capacity/", "/admin/tracker/tenant/"):
        page = text(client.get(url))
        sidebar = page.split('id="nav-sidebar"', 1)[1].split("</nav>", 1)[0]
        ddb = sidebar.split('class="app-ddb module', 1)[1].split("</table>", 1)[0]
        assert '<a href="/admin/ddb/" class="section"' in ddb
        for href, label in (
            (TABLES_URL, "Tables and items"),
            ("/admin/ddb/jobs/", "Maintenance jobs"),
            ("/admin/ddb/capacity/", "Capacity"),
            ("/admin/ddb/tracker/", "Tenants"),
            ("/admin/ddb/tracker/orders/", "Orders"),
            ("/admin/ddb/tracker/attachments/", "Attachments in flight"),
        ):
            assert re.search(rf'<a href="{re.escape(href)}"[^>]*>{label}</a>', ddb), (url, label)
    assert client.get("/admin/ddb/")["Location"] == "/admin/#ddb-module"


def test_staff_who_may_not_see_dynamodb_data_get_no_dynamodb_sidebar(client: Client) -> None:
    user = User.objects.create_user("sidebar-none", password="pw-for-tests", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_user"))
    client.force_login(user)
    page = text(client.get("/admin/auth/user/"))
    assert 'id="nav-sidebar"' in page
    assert "app-ddb" not in page
