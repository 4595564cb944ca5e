"""Security: a bad Host is a 400, a CSP on every page and no inline script, login throttling,
staff permissions on DynamoDB data, and every staff edit or delete in the staff audit."""

from __future__ import annotations

import html
import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from pytest_django.fixtures import SettingsWrapper

from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, text
from tests.tracker.orders_helpers import new_order
from tests.tracker.test_admin_browser import browse_url, item_links, open_edit_form, post_edit
from tracker.audit.models import AuditEntry
from tracker.env import ROOT
from tracker.login_throttle import client_ip
from tracker.services.addresses import address_mark_confirmed

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
        # No inline style either (issue 20, finding 14: style-src allowed 'unsafe-inline'): the admin's
        # and our pages' styles are in static files (tests/tracker/browser/test_csp_styles.py).
        assert directives["style-src"] == ["'self'"], url
        assert directives["default-src"] == ["'self'"], url
        assert directives["object-src"] == ["'none'"], url
        # Framing: CSP and X-Frame-Options say the same, "nobody" (issue 20, finding 14: they disagreed,
        # frame-ancestors 'self' against DENY).
        assert directives["frame-ancestors"] == ["'none'"], url
        assert response["X-Frame-Options"] == "DENY", url


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.I)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle\s*=", re.I)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)


def test_no_template_has_an_inline_script_event_handler_or_style() -> None:
    """The policy refuses them all (script-src and style-src 'self'; styles: issue 20, finding 14)."""
    for template in sorted((ROOT / "templates").rglob("*.html")):
        source = Path(template).read_text()
        for inline in (INLINE_SCRIPT, EVENT_HANDLER, STYLE_ATTRIBUTE, STYLE_ELEMENT):
            assert not inline.search(source), (template, inline.pattern)


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


def wrong_logins(client: Client, usernames: list[str], **meta: str) -> list[int]:
    return [
        client.post("/accounts/login/", {"username": name, "password": "wrong"}, **meta).status_code
        for name in usernames
    ]


def test_behind_a_proxy_one_clients_wrong_passwords_do_not_lock_the_account_out_for_another(
    settings: SettingsWrapper, world: World
) -> None:
    settings.AXES_ENABLED = True
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = {"REMOTE_ADDR": "10.0.0.9"}  # every request reaches the app from the proxy
    username = world.member.username
    attacker = Client(HTTP_X_FORWARDED_FOR="203.0.113.7", **proxy)
    statuses = wrong_logins(attacker, [username] * settings.AXES_FAILURE_LIMIT)
    assert statuses[-1] == 429  # the attacker's address is locked out for that account...
    # ...even when it puts another address first in X-Forwarded-For (the proxy appends the real one)
    spoofed = Client(HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.7", **proxy)
    assert spoofed.post("/accounts/login/", {"username": username, "password": "pw-for-tests"}).status_code == 429
    # The account's owner, elsewhere, behind the same proxy, still signs in.
    owner = Client(HTTP_X_FORWARDED_FOR="198.51.100.23", **proxy)
    assert owner.post("/accounts/login/", {"username": username, "password": "pw-for-tests"}).status_code == 302


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.7", "10.0.0.9"),  # no proxy trusted: X-Forwarded-For is the client's own words
        (1, "", "10.0.0.9"),  # came in past the proxy: its peer is the client
        (1, "198.51.100.1, 203.0.113.7", "203.0.113.7"),  # the proxy appended the real one
        (2, "198.51.100.1, 203.0.113.7, 10.0.0.8", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),  # fewer entries than proxies: the left-most
    ],
)
def test_the_client_address_is_counted_from_the_right_past_the_trusted_proxies(
    settings: SettingsWrapper, proxies: int, forwarded: str, expected: str
) -> None:
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


def test_one_address_spraying_a_password_over_many_usernames_is_locked_out(
    settings: SettingsWrapper, world: World
) -> None:
    settings.AXES_ENABLED = True
    assert settings.AXES_ADDRESS_FAILURE_LIMIT == 20  # the README's figure
    sprayer = Client(REMOTE_ADDR="203.0.113.50")
    names = [f"sprayed-{n}" for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT)]
    statuses = wrong_logins(sprayer, names)
    assert statuses[:-1] == [200] * (len(names) - 1)  # each username is below its own limit
    assert statuses[-1] == 429
    assert "for several usernames" in text(sprayer.post("/accounts/login/", {"username": "x", "password": "y"}))
    # From that address even a right password is refused now; other addresses are not affected.
    right = {"username": world.owner.username, "password": "pw-for-tests"}
    assert sprayer.post("/accounts/login/", right).status_code == 429
    assert Client(REMOTE_ADDR="203.0.113.51").post("/accounts/login/", right).status_code == 302


def test_password_reset_past_the_limit_answers_the_same_page_and_sends_nothing(
    settings: SettingsWrapper, world: World, mailoutbox: list[Any]
) -> None:
    assert (settings.PASSWORD_RESET_LIMIT, settings.PASSWORD_RESET_WINDOW_SECONDS) == (5, 3600)  # the README's
    address = f"198.18.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    emails = [f"reset-{secrets.token_hex(4)}-{n}@example.com" for n in range(settings.PASSWORD_RESET_LIMIT + 1)]
    for email in emails:
        user = User.objects.create_user(email.split("@")[0], email=email, password="pw-for-tests")
        address_mark_confirmed(user=user)  # only a confirmed address gets a reset link
    client = Client(REMOTE_ADDR=address)
    answers = [client.post("/accounts/password_reset/", {"email": email}) for email in emails]
    assert [a.status_code for a in answers] == [302] * len(emails)
    assert len({a["Location"] for a in answers}) == 1  # the throttled one looks like the others
    assert [m.to for m in mailoutbox] == [[e] for e in emails[: settings.PASSWORD_RESET_LIMIT]]
    # One account is limited too, whatever the address.
    target = emails[0]
    for n in range(settings.PASSWORD_RESET_LIMIT):
        Client(REMOTE_ADDR=f"198.19.{n}.{secrets.randbelow(250)}").post("/accounts/password_reset/", {"email": target})
    assert sum(m.to == [target] for m in mailoutbox) == settings.PASSWORD_RESET_LIMIT


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


# ------------------------------------------------------------------------------ the staff audit


def test_a_staff_edit_of_an_item_is_in_the_staff_audit_with_what_changed(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "logged-editor", "Before the edit")
    form["item"]["t"] = {"S": "After the edit"}  # the title's stored name
    assert post_edit(client, url, form["item"], form["loaded"]).status_code == 302
    entry = AuditEntry.objects.get(username="logged-editor")
    assert (entry.action, entry.outcome, entry.tenant) == ("item_change", "done", world.slug)
    assert entry.details["changes"]["t"] == {"old": {"S": "Before the edit"}, "new": {"S": "After the edit"}}
    assert entry.details["key"] == {"pk": {"S": f"{world.slug}#WEB"}, "n": {"N": str(issue.number)}}
    assert "issues" in entry.target


def test_a_staff_delete_of_an_item_is_in_the_staff_audit_by_names_and_sizes(client: Client, world: World) -> None:
    from tests.tracker.helpers import staff_user

    client.force_login(staff_user("logged-deleter", may_change=True))
    new_order(world)
    (url,) = item_links(client.get(browse_url("orders", mode="query", pk=world.slug)))
    delete_href = re.search(r'href="([^"]+)" class="deletelink"', text(client.get(url)))
    assert delete_href
    delete_url = html.unescape(delete_href.group(1))
    confirm = client.get(delete_url)
    assert client.post(delete_url, {"loaded": hidden_value(confirm, "loaded")}).status_code == 302
    entry = AuditEntry.objects.get(username="logged-deleter")
    assert (entry.action, entry.outcome, entry.tenant) == ("item_delete", "done", world.slug)
    assert entry.details["changes"]["c"] == {"old_size": len(json.dumps({"S": world.slug})), "new_size": None}
