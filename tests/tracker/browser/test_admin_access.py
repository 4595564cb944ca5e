"""Who gets into the admin, in a real browser: anonymous, non-staff, and read-only staff."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from ddbmodels.core import connection
from ddbmodels.core import items as ddb
from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker import item_json

pytestmark = pytest.mark.browser

NOT_STAFF = "Please enter the correct username and password for a staff account."


@pytest.mark.parametrize("path", ["/admin/", "/admin/ddb/tables/"])
def test_an_anonymous_visitor_lands_on_the_admin_login(page: Page, path: str) -> None:
    page.goto(path)
    expect(page).to_have_url(re.compile(rf"/admin/login/\?next={re.escape(path)}$"))
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator("#ddb-module")).to_have_count(0)
    shot(page, f"access-anonymous-{path.strip('/').replace('/', '-')}")


def test_a_member_who_is_not_staff_is_refused_by_the_admin_login(page: Page, world: World) -> None:
    admin_login(page, world.member.username, next_url="/admin/ddb/tables/")
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator(".errornote")).to_contain_text(NOT_STAFF)
    shot(page, "access-not-staff-refused")
    page.goto("/admin/ddb/tables/")  # the right password made no admin session either
    expect(page).to_have_url(re.compile(r"/admin/login/"))


def test_staff_without_change_permission_see_items_read_only_and_a_forged_save_is_403(page: Page, world: World) -> None:
    reader = staff_user("ops-reader", perms=("view_tenant",))
    issue = new_issue(world, "Read me, do not change me")
    table = connection.table_name("issues")
    admin_login(page, "ops-reader")
    page.goto(f"/admin/ddb/tables/{table}/?mode=query&pk={world.slug}%23WEB&sk_op=%3D&sk=1")
    page.get_by_role("link", name="Open item").click()
    expect(page.locator("#item-json")).to_contain_text("Read me, do not change me")
    expect(page.locator(".ddb-read-only")).to_contain_text("Read only")
    expect(page.locator("#edit-form")).to_have_count(0)
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.locator("input[type=submit][value=Save]")).to_have_count(0)
    shot(page, "access-read-only-item")

    # Forge the save the page does not offer: the session's CSRF token, a well-formed item and the
    # fingerprint of the item as it is now — only the missing permission stands in the way.
    url = page.url
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    stored = ddb.item_get(table, {"pk": {"S": f"{world.slug}#WEB"}, "n": {"N": "1"}})
    assert stored is not None
    forged = dict(stored, t={"S": "Forged title"})
    form: dict[str, str | float | bool] = {
        "csrfmiddlewaretoken": csrf,
        "item_json": json.dumps(forged),
        "loaded": item_json.fingerprint(stored),
    }
    refused = page.request.post(url, form=form, headers={"Referer": url}, max_redirects=0)
    assert refused.status == 403
    body = refused.text()
    assert "CSRF" not in body
    assert "Editing or deleting raw DynamoDB items needs superuser status or the audit.edit_raw_items" in body
    after = load(world, 1)
    assert after is not None
    assert (after.title, after.version) == ("Read me, do not change me", issue.version)

    # tracker.change_tenant (what one grants to rename teams) does not give raw edits either (issue 20, finding 4).
    reader.user_permissions.add(Permission.objects.get(codename="change_tenant", content_type__app_label="tracker"))
    assert page.request.post(url, form=form, headers={"Referer": url}, max_redirects=0).status == 403
    after = load(world, 1)
    assert after is not None
    assert after.version == issue.version

    # Control: the very same request from the same session goes through once the permission is
    # granted — so it was the permission, not a malformed forgery, that the 403 was about.
    reader.user_permissions.add(Permission.objects.get(codename="edit_raw_items", content_type__app_label="audit"))
    accepted = page.request.post(url, form=form, headers={"Referer": url}, max_redirects=0)
    assert accepted.status == 302
    after = load(world, 1)
    assert after is not None
    assert after.title == "Forged title"
