"""Small things a newcomer notices: plain labels, no double full stop, JSON before the script runs,
counted new projects, stylesheets in <head>, a favicon."""

from __future__ import annotations

import json
import re
import uuid
from unittest import mock

from django.test import Client

from ddbmodels import issues as ddb_projects
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, staff_client, text
from tests.tracker.orders_helpers import new_order
from tracker.env import ROOT

BASE = "/admin/ddb/tracker/"


def test_the_staff_orders_table_says_how_an_order_is_delivered_in_words(world: World) -> None:
    new_order(world, delivery="next_cycle")
    page = text(staff_client("nits-orders").get(f"{BASE}orders/?tenant={world.slug}"))
    row = re.search(r'<tr class="order" data-number="\d+">(.*?)</tr>', page, re.S)
    assert row
    assert "<td>At the start of the next billing cycle</td>" in row.group(1)
    assert "next_cycle" not in row.group(1)


def test_the_admin_project_page_ends_a_description_with_one_full_stop(world: World) -> None:
    ddb_projects.project_create(
        tenant=world.slug, key="OPS", name="Operations", description="Demo project: operations.", created_by="x"
    )
    page = text(staff_client("nits-project").get(f"{BASE}t/{world.slug}/OPS/"))
    assert '<p id="project-about">Operations — Demo project: operations.</p>' in page
    assert ".." not in page.split('id="project-about"')[1].split("</p>")[0]


def test_a_finished_jobs_result_is_json_before_the_script_replaces_it() -> None:
    task_id = uuid.uuid4()
    result = {"job": "distinct_keys:tracker-issues", "keys": 3, "ok": True, "capacity": {"rcu": 1.5, "requests": 2}}
    status = {"task_id": str(task_id), "state": "SUCCESS", "ready": True, "result": result}
    with mock.patch("tracker.views.admin.jobs.job_status", return_value=status):
        page = text(staff_client("nits-job").get(f"/admin/ddb/jobs/{task_id}/"))
    shown = page.split('<pre id="job-json">')[1].split("</pre>")[0]
    assert json.loads(shown.replace("&quot;", '"')) == result
    assert "True" not in shown
    assert "'job'" not in shown


def test_a_new_project_counts_zero_issues_at_once(world: World) -> None:
    """Not '— —' until the counting job runs: a project is created with no issues, counted as such."""
    ddb_projects.project_create(tenant=world.slug, key="NEW", name="Brand new", created_by=world.owner.username)
    project = ddb_projects.project_get(tenant=world.slug, key="NEW")
    assert project is not None
    assert project.issue_counts is not None
    assert project.live_count() == 0
    assert project.counted_at is not None
    listing = text(world.client_for(world.member).get(world.url()))
    row = listing.split("Brand new")[1].split("</tr>")[0]
    assert '<td data-label="Open" class="num">0</td>' in row
    assert '<td data-label="All live issues" class="num">0</td>' in row
    assert "—" not in row


def test_stylesheets_are_linked_in_the_head(world: World) -> None:
    new_issue(world, "Styled")
    client = world.client_for(world.member)
    for url in (world.project_url("1/"), world.url("inbox/"), world.url("activity/"), world.project_url("")):
        page = text(client.get(url))
        head, body = page.split("<body", 1)  # <body data-search-url=…> on a team's pages
        assert "stylesheet" in head, url
        assert 'rel="stylesheet"' not in body, url


def test_site_and_admin_pages_have_a_favicon(world: World) -> None:
    assert (ROOT / "static" / "favicon.svg").read_text().startswith("<svg")
    icon = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
    assert icon in text(Client().get("/accounts/login/"))
    assert icon in text(world.client_for(world.member).get(world.url()))
    assert icon in text(staff_client("nits-icon").get("/admin/"))
