"""Helpers of the browser tests: screenshots, logging in through the real forms, messages."""

from __future__ import annotations

import re
from pathlib import Path

from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from tracker.env import ROOT

SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"  # git-ignored (test-artifacts/)
PASSWORD = "pw-for-tests"  # the password of every user of tests/tracker/conftest.py's worlds


def shot(page: Page, name: str) -> Path:
    """Save a full-page PNG of what the browser shows as test-artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def admin_login(page: Page, username: str, password: str = PASSWORD, *, next_url: str = "/admin/") -> None:
    """Fill in and send the admin's own login form (/admin/login/)."""
    page.goto(f"/admin/login/?next={next_url}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("#login-form [type=submit]")


def site_login(page: Page, username: str, password: str = PASSWORD) -> None:
    """Fill in and send the site's login form (/accounts/login/, registration/login.html)."""
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("header.top .who")).to_have_text(username)


def staff_user(username: str, *, superuser: bool = False, perms: tuple[str, ...] = ()) -> User:
    """A staff user (or superuser) with the given ``tracker`` permissions (codenames)."""
    if superuser:
        return User.objects.create_superuser(username, password=PASSWORD)
    user = User.objects.create_user(username, password=PASSWORD, is_staff=True)
    for codename in perms:
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label="tracker"))
    return user


def admin_messages(page: Page) -> list[str]:
    """The admin's flash messages on the current page (ul.messagelist)."""
    return [m.strip() for m in page.locator("ul.messagelist li").all_inner_texts()]
