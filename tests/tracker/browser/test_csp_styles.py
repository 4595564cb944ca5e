"""No inline style anywhere (issue 20, finding 14): with ``style-src 'self'`` Chromium refuses every
``style="…"`` attribute and ``<style>`` element and says so in the console; every admin page and the
main user pages, at 1280 and 390 px, must cause no such report (their looks are in static/ CSS).

The pages are found by following links (same origin, GET-safe) from a few starting pages, so a page
added later is visited without being listed here. Screenshots: test-artifacts/screenshots/styles-*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from pytest_django.live_server_helper import LiveServer

from ddbmodels import comments, orders
from ddbmodels.scores import score_add
from tests.tracker.browser.helpers import admin_login, shot, site_login, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

WIDTHS: dict[str, ViewportSize] = {"1280": {"width": 1280, "height": 900}, "390": {"width": 390, "height": 844}}
# Links not followed: they change something on a GET, end the session, answer JSON or a file, or only
# re-sort or filter a page already visited (Django's change lists: ?o=, ?q=, ?status=…).
SKIP = re.compile(
    r"/(logout|delete|detach|withdraw|remove|read|status|watch|unwatch|switch)/"
    r"|\.json$|/jsi18n/|/admin/r/|/attachments/|/inbox/[^/]+/$|/join/[^/]+/$"
)
ADMIN_QUERY_OK = re.compile(r"^/admin/ddb/")  # the DynamoDB pages take their keys in the query
MOST_PAGES = 150


def filled(world: World) -> None:
    """An issue with a comment, an order and a score: the pages then show rows, not only empty states."""
    issue = new_issue(world, "Styled by a stylesheet")
    comments.comment_add(
        tenant=world.slug,
        project_key=world.project_key,
        number=int(issue.number),
        author=world.member.username,
        body="Hi",
    )
    orders.order_place(customer=world.slug, product="seats", quantity=2, delivery="standard", placed_by="owner")
    score_add(tenant=world.slug, username=world.member.username, points=3)


def links(page: Page, base: str) -> list[str]:
    hrefs: list[str] = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    found = []
    for href in hrefs:
        url = urlsplit(urljoin(page.url, href))
        if url.netloc != urlsplit(base).netloc:
            continue
        path = url.path + (f"?{url.query}" if url.query else "")
        if url.query and not ADMIN_QUERY_OK.match(url.path):
            continue
        if not SKIP.search(url.path):
            found.append(path)
    return found


def crawl(page: Page, base: str, starts: Iterable[str], *, inside: str, depth: int) -> list[str]:
    """Every page reachable from ``starts`` in ``depth`` links, staying under ``inside``; each answered < 500."""
    seen: list[str] = []
    keys: set[str] = set()
    frontier = list(starts)
    for _ in range(depth + 1):
        following: list[str] = []
        for path in frontier:
            key = path.partition("?")[0] if "/item/?" in path else path  # item links are signed anew each time
            if key in keys or not path.startswith(inside) or len(seen) >= MOST_PAGES:
                continue
            keys.add(key)
            seen.append(path)
            response = page.goto(path)
            assert response is not None, path
            assert response.status < 500, f"{path}: {response.status}"
            following += links(page, base)
        frontier = following
    return seen


def at_both_widths(page: Page, paths: Iterable[str], name: str, shots: Iterable[str] = ()) -> None:
    """Open each page at 390 px (at 1280 px the crawl did); a screenshot at both of those in ``shots``."""
    wanted = set(shots)
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        for path in paths:
            if width == "390" or path in wanted:
                page.goto(path)
            if path in wanted:
                shot(page, f"styles-{name}-{width}-{re.sub(r'[^a-z0-9]+', '-', path.lower()).strip('-')}")


def test_every_admin_page_applies_no_inline_style_at_either_width(
    page: Page, world: World, live_server: LiveServer, violations: list[str]
) -> None:
    filled(world)
    staff_user("styles-root", superuser=True)
    admin_login(page, "styles-root")
    base = live_server.url
    starts = [
        "/admin/",
        "/admin/ddb/",
        "/admin/ddb/tables/",
        "/admin/ddb/tracker/",
        f"/admin/ddb/tracker/t/{world.slug}/",
    ]
    pages = crawl(page, base, starts, inside="/admin/", depth=2)
    ddb = [p for p in pages if p.startswith("/admin/ddb/")]
    # Every model's list and add page, the DynamoDB pages (tables, an item, jobs, capacity, a team's data)
    assert {"/admin/tracker/tenant/", "/admin/auth/user/add/", "/admin/ddb/tables/", "/admin/ddb/capacity/"} <= set(
        pages
    ), pages
    assert any("/item/?" in p for p in ddb), ddb
    assert any(p.startswith(f"/admin/ddb/tracker/t/{world.slug}/{world.project_key}/") for p in ddb), ddb
    shots = ["/admin/", "/admin/ddb/tables/", "/admin/ddb/capacity/", f"/admin/ddb/tracker/t/{world.slug}/"]
    shots += ["/admin/ddb/tracker/orders/", "/admin/ddb/tracker/attachments/", "/admin/tracker/tenant/"]
    shots += [p for p in ddb if p.startswith(f"/admin/ddb/tracker/t/{world.slug}/{world.project_key}/")][:1]
    at_both_widths(page, pages, "admin", shots)
    assert violations == [], "\n".join(violations)
    # django-celery-beat's periodic task form says the chosen crontab in words (its inline script did;
    # tracker/admin/periodic_task.js does now), and still does after another choice.
    task = next(p for p in pages if re.fullmatch(r"/admin/django_celery_beat/periodictask/\d+/change/", p))
    page.set_viewport_size(WIDTHS["1280"])
    page.goto(task)
    words = page.locator(".field-crontab .crontab-in-words")
    expect(words).to_have_text(re.compile(r"^Translation: \S"))
    expect(page.locator(".field-crontab_translation")).to_be_hidden()
    choices = page.locator("#id_crontab option[value]:not([value=''])").evaluate_all("os => os.map(o => o.value)")
    page.select_option("#id_crontab", choices[-1])
    expect(words).to_have_text(re.compile(r"^Translation: \S"))
    shot(page, "styles-admin-1280-periodic-task")
    assert violations == [], "\n".join(violations)


def test_the_main_user_pages_apply_no_inline_style_at_either_width(
    page: Page, world: World, live_server: LiveServer, violations: list[str]
) -> None:
    filled(world)
    base = live_server.url
    anonymous = ["/accounts/login/", "/accounts/password_reset/", "/admin/login/"]
    at_both_widths(page, anonymous, "anonymous", ["/accounts/login/"])
    site_login(page, world.owner.username)
    starts = ["/", world.url(), world.project_url(), world.project_url("1/"), world.url("no-such-page/")]
    pages = crawl(page, base, starts, inside="/", depth=1)
    pages = [p for p in pages if not p.startswith("/admin/")]
    for expected in (world.url("orders/"), world.url("leaderboard/"), world.url("team/"), world.url("inbox/")):
        assert expected in pages, pages
    shots = [world.url(), world.project_url(), world.project_url("1/"), world.url("orders/"), world.url("team/")]
    at_both_widths(page, pages, "site", shots)
    assert violations == [], "\n".join(violations)
