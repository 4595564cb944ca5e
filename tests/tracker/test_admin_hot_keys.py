"""The hot-keys page: the partition keys that took the most requests and capacity in the last minutes."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from ddbmodels import connection
from ddbmodels.core import hot_keys
from ddbmodels.core.hot_keys import Batch, Figures, Touch
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, staff_client, text
from tracker import hot_key_stats, optional_redis, tasks

pytestmark = pytest.mark.ddblocal
URL = "/admin/ddb/hot-keys/"


@pytest.fixture(autouse=True)
def _every_request_counted() -> Iterator[None]:
    """Count every request and ship at each request's end; start from no figures in Redis."""
    client = optional_redis.client(settings.REDIS_URL)
    for key in client.scan_iter(f"{hot_key_stats.KEY_PREFIX}*"):
        client.delete(key)
    hot_keys.counter().drain()
    hot_keys.configure(sample_rate=1.0, flush_seconds=0)
    yield
    hot_keys.counter().drain()
    hot_key_stats.install()


def rows(page: str, table: str, index: str = "", caption: str = "By requests") -> list[tuple[str, float, bool]]:
    """(key, share %, flagged hot) of one table's list on the page, in the page's order."""
    module = re.search(rf'data-table="{re.escape(table)}" data-index="{index}">(.*?)</div>', page, re.S)
    assert module is not None, f"{table} is not on the page"
    listing = re.search(rf"<caption>{caption}</caption>(.*?)</table>", module.group(1), re.S)
    assert listing is not None
    found = re.findall(
        r'<tr class="(hot|)"><td class="key">([^<]*)(?: <strong>hot</strong>)?</td><td>[^<]*</td><td>([\d.]+) %</td>',
        listing.group(1),
    )
    return [(key, float(share), flag == "hot") for flag, key, share in found]


def test_after_a_burst_of_reads_on_one_project_the_page_names_its_key_first_and_flags_it(
    world: World, make_world: object
) -> None:
    new_issue(world, "Burst target")
    quiet = make_world()  # type: ignore[operator]
    new_issue(quiet, "Elsewhere")
    member, other = world.client_for(world.member), quiet.client_for(quiet.member)
    for _ in range(30):
        assert member.get(world.project_url("1/")).status_code == 200
    for _ in range(3):
        assert other.get(quiet.project_url("1/")).status_code == 200

    response = staff_client("hotkeys-staff").get(URL, {"minutes": 1})
    assert response.status_code == 200
    page = response.content.decode()
    issues_table = connection.table_name("issues")
    by_requests = rows(page, issues_table)
    assert by_requests[0][0] == f"{world.slug}#WEB"
    assert by_requests[0][1] == max(share for _, share, _ in by_requests)
    assert by_requests[0][1] > 50.0
    assert by_requests[0][2] is True  # flagged: more than a quarter of the table, well above 20 requests
    assert f"{quiet.slug}#WEB" in [key for key, _, _ in by_requests[1:]]
    assert all(not hot for _, _, hot in by_requests[1:])
    assert rows(page, issues_table, caption="By capacity")[0][0] == f"{world.slug}#WEB"
    assert "3,000 read units and 1,000 write units a second" in text(response)
    # Every one of the 30 page loads read the project's partition (a GetItem of 0.5 RCU): none was
    # lost; the rest is the project's and the issue's creation (34 requests, 16.5 RCU, 10 WCU today).
    burst = {(t.table, t.index): t for t in hot_key_stats.window(1)}[(issues_table, "")].keys[f"{world.slug}#WEB"]
    assert 30 <= burst.requests <= 40
    assert burst.rcu >= 15.0


def ship_at(at: datetime, batch: Batch, monkeypatch: pytest.MonkeyPatch) -> None:
    real = hot_key_stats.utcnow
    monkeypatch.setattr(hot_key_stats, "utcnow", lambda: at)  # the one clock (keys.utcnow), pinned
    hot_key_stats.ship(batch)
    monkeypatch.setattr(hot_key_stats, "utcnow", real)


def batch_of(**requests: float) -> Batch:
    batch = Batch()
    for key, count in requests.items():
        batch.keys[Touch("t", "", key)] = Figures(requests=count, rcu=count / 2)
        batch.tables.setdefault(("t", ""), Figures()).add(count, count / 2, 0.0)
    return batch


def test_the_window_sums_its_minutes_and_leaves_older_ones_out(monkeypatch: pytest.MonkeyPatch) -> None:
    now = datetime.now(UTC)
    ship_at(now, batch_of(a=10, b=30), monkeypatch)
    ship_at(now - timedelta(minutes=3), batch_of(a=60), monkeypatch)
    last_minute = {t.table: t for t in hot_key_stats.window(1)}["t"]
    assert [(r.key, r.requests, r.request_percent) for r in last_minute.top_requests] == [
        ("b", 30, 75.0),
        ("a", 10, 25.0),
    ]
    five = {t.table: t for t in hot_key_stats.window(5)}["t"]
    assert [(r.key, r.requests, r.request_percent) for r in five.top_requests] == [("a", 70, 70.0), ("b", 30, 30.0)]
    assert five.units == 50.0
    assert [r.key for r in five.hot_keys] == ["a", "b"]  # both above 25 % with 20 requests or more


def test_a_big_share_of_a_quiet_table_is_not_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    ship_at(datetime.now(UTC), batch_of(a=5, b=1), monkeypatch)
    table = {t.table: t for t in hot_key_stats.window(1)}["t"]
    assert table.top_requests[0].request_share > 0.8
    assert table.hot_keys == []


def test_each_minute_keeps_only_its_biggest_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hot_key_stats, "KEEP_PER_MINUTE", 3)
    hot_key_stats.ship(batch_of(a=1, b=2, c=3, d=4, e=5))
    table = {t.table: t for t in hot_key_stats.window(1)}["t"]
    assert sorted(table.keys) == ["c", "d", "e"]
    assert table.requests == 15  # the table's total still counts every key


def test_with_redis_down_pages_and_the_hot_keys_page_answer(world: World) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    url = f"redis://127.0.0.1:{port}/0"
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    new_issue(world, "Still readable")
    with override_settings(REDIS_URL=url, CACHES=caches):
        optional_redis.resume()
        member = world.client_for(world.member)
        for _ in range(3):
            assert member.get(world.project_url("1/")).status_code == 200
        optional_redis.resume()  # the page itself meets the outage, not only a pause
        response = staff_client("hotkeys-staff").get(URL)
    optional_redis.resume()
    assert response.status_code == 200
    assert "No DynamoDB request counted in the last 5 minutes" in text(response)


def test_the_capacity_page_links_to_it_and_only_staff_who_may_see_data_get_it() -> None:
    client = staff_client("hotkeys-staff")
    assert f'href="{URL}"' in client.get("/admin/ddb/capacity/").content.decode()
    assert Client().get(URL).status_code == 302
    plain_staff = Client()
    plain_staff.force_login(User.objects.create_user("nodata", password="pw-for-tests", is_staff=True))
    assert plain_staff.get(URL).status_code == 403


def test_an_unknown_window_falls_back_to_five_minutes() -> None:
    response = staff_client("hotkeys-staff").get(URL, {"minutes": "abc"})
    assert response.status_code == 200
    assert "<strong>5 min</strong>" in response.content.decode()


def test_a_worker_task_that_is_no_job_ships_its_keys_when_it_ends(world: World) -> None:
    # Pages and jobs ship through capacity_stats.record; a plain task (a count refresh, an inbox
    # fan-out) ships when Celery says it ended — here run in this process as a worker would.
    hot_key_stats.install()  # the task_postrun hook; the fixture restores the interval of 0 s
    hot_keys.configure(sample_rate=1.0, flush_seconds=0)
    hot_keys.counter().drain()

    result = tasks.refresh_project_counts.apply(args=[world.slug, world.project_key])

    assert result.successful()
    assert hot_keys.counter().drain().keys == {}  # shipped, not left in the process
    shipped = {(t.table, t.index): t for t in hot_key_stats.window(1)}[(connection.table_name("issues"), "")]
    assert f"{world.slug}#WEB" in shipped.keys
