"""Security: a bad Host is a 400, a CSP on every page and no inline script, login throttling,
staff permissions on DynamoDB data, and every staff edit or delete in the admin log."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.contrib.admin.models import CHANGE, DELETION, LogEntry
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import SettingsWrapper

from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, text
from tests.tracker.orders_helpers import new_order
from tests.tracker.test_admin_browser import browse_url, item_links, open_edit_form, post_edit
from tracker.env import ROOT

# ------------------------------------------------------------------------------ Host


@pytest.mark.parametrize("url", ["/", "/accounts/login/", "/admin/", "/t/any/"])
def test_a_request_for_a_host_not_allowed_is_a_400(client: Client, url: str) -> None:
    response = client.get(url, HTTP_HOST="evil.example")
    assert response.status_code == 400


def test_a_signed_in_request_for_a_host_not_allowed_is_a_400_too(world: World) -> None:
    response = world.client_for(world.member).get(world.url(), HTTP_HOST="evil.example")
    assert response.status_code == 400


# ------------------------------------------------------------------------------ Content-Security-Policy


def policy(response: object) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]  # type: ignore[index]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def test_every_html_page_has_a_content_security_policy_without_inline_script(world: World) -> None:
    member = world.client_for(world.member)
    staff = Client()
    staff.force_login(User.objects.create_superuser("csp-root", password="pw-for-tests"))
    pages = [
        (Client(), "/accounts/login/"),
        (member, world.url()),
        (member, world.project_url()),
        (member, world.url("no-such-page/")),  # the 404 page
        (staff, "/admin/"),
        (staff, "/admin/ddb/tables/"),
        (staff, "/admin/tracker/tenant/"),
    ]
    for client, url in pages:
        response = client.get(url)
        assert "text/html" in response["Content-Type"], url
        directives = policy(response)
        assert directives["script-src"] == ["'self'"], url
        assert directives["default-src"] == ["'self'"], url
        assert directives["object-src"] == ["'none'"], url


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.I)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def test_no_template_has_an_inline_script_or_event_handler() -> None:
    for template in sorted((ROOT / "templates").rglob("*.html")):
        source = Path(template).read_text()
        assert not INLINE_SCRIPT.search(source), template
        assert not EVENT_HANDLER.search(source), template


# ------------------------------------------------------------------------------ login throttling


def test_five_wrong_passwords_lock_the_username_out_of_both_logins_for_a_while(
    settings: SettingsWrapper, world: World
) -> None:
    settings.AXES_ENABLED = True  # the test settings keep django-axes installed but off
    client = Client()
    username = world.member.username
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/accounts/login/", {"username": username, "password": "wrong"})
        assert response.status_code == 200  # the form again, with its error
    locked = client.post("/accounts/login/", {"username": username, "password": "wrong"})
    assert locked.status_code == 429
    assert 'id="locked-out"' in text(locked)
    # Now even the right password is refused, on the site's login and the admin's.
    right = client.post("/accounts/login/", {"username": username, "password": "pw-for-tests"})
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session
    admin = client.post("/admin/login/", {"username": username, "password": "pw-for-tests"})
    assert admin.status_code == 429
    # Another username from the same address is not locked out.
    assert (
        Client().post("/accounts/login/", {"username": world.owner.username, "password": "pw-for-tests"}).status_code
        == 302
    )


# ------------------------------------------------------------------------------ staff permissions


def test_staff_without_the_view_permission_see_no_dynamodb_page(world: World) -> None:
    client = Client()
    client.force_login(User.objects.create_user("no-perms", password="pw-for-tests", is_staff=True))
    for url in (
        "/admin/ddb/tables/",
        browse_url("issues", mode="scan"),
        "/admin/ddb/tracker/",
        f"/admin/ddb/tracker/t/{world.slug}/",
        "/admin/ddb/jobs/",
        "/admin/ddb/capacity/",
    ):
        assert client.get(url).status_code == 403, url
    index = client.get("/admin/")
    assert index.status_code == 200
    assert 'id="ddb-module"' not in text(index)


# ------------------------------------------------------------------------------ the admin log


def test_a_staff_edit_of_an_item_is_in_the_admin_log_with_before_and_after(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "logged-editor", "Before the edit")
    form["item"]["t"] = {"S": "After the edit"}  # the title's stored name
    assert post_edit(client, url, form["item"], form["loaded"]).status_code == 302
    entry = LogEntry.objects.get(user__username="logged-editor")
    assert entry.action_flag == CHANGE
    record = json.loads(entry.change_message)
    assert record["before"]["t"] == {"S": "Before the edit"}
    assert record["after"]["t"] == {"S": "After the edit"}
    assert record["key"] == {"pk": {"S": f"{world.slug}#WEB"}, "n": {"N": str(issue.number)}}
    assert "issues" in entry.object_repr


def test_a_staff_delete_of_an_item_is_in_the_admin_log_with_what_it_was(client: Client, world: World) -> None:
    from tests.tracker.helpers import staff_user

    client.force_login(staff_user("logged-deleter", may_change=True))
    new_order(world)
    (url,) = item_links(client.get(browse_url("orders", mode="query", pk=world.slug)))
    delete_href = re.search(r'href="([^"]+)" class="deletelink"', text(client.get(url)))
    assert delete_href
    delete_url = html.unescape(delete_href.group(1))
    confirm = client.get(delete_url)
    assert client.post(delete_url, {"loaded": hidden_value(confirm, "loaded")}).status_code == 302
    entry = LogEntry.objects.get(user__username="logged-deleter")
    assert entry.action_flag == DELETION
    record = json.loads(entry.change_message)
    assert record["before"]["c"] == {"S": world.slug}
    assert record["after"] is None
