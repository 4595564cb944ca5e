"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

These tests live under tests/tracker/ so tests/tracker/conftest.py applies to them too: every
test gets DynamoDB Local, the session's Redis as cache and broker (``_web_services``), and may
use ``world``/``make_world`` and ``start_worker``. The live server runs in a thread of this
process, so it shares the test's settings overrides, DynamoDB prefix and in-memory database.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, ViewportSize, expect, sync_playwright
from pytest_django.live_server_helper import LiveServer

from tests.tracker.browser.helpers import SCREENSHOTS, shot

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package `chromium`; `make test` installs it
# Without the background-networking flags Chromium keeps dialling Google services that this
# machine refuses, and stalls; no sandbox because the tests may run as root (containers, CI).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the browser tests (started once, closed after the last of them).

    Playwright's sync API runs an asyncio event loop in this thread (in a greenlet) from start to
    stop, so ``asyncio.get_running_loop()`` succeeds here and Django refuses ORM calls from the
    test body (and pytest-django's database flush) with SynchronousOnlyOperation, although
    nothing here is async. DJANGO_ALLOW_ASYNC_UNSAFE turns that check off — only while
    Playwright runs: package scope, not session, so the loop and the flag end with the last
    browser test and the rest of the suite keeps Django's check.
    """
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium. `make test` installs it "
            "(or: apt-get install -y --no-install-recommends chromium). Never `playwright install`.",
            pytrace=False,
        )
    for old in SCREENSHOTS.glob("*.png"):  # the folder shows this run only
        old.unlink()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            expect.set_options(timeout=TIMEOUT_MS)
            yield chromium
            chromium.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember each phase's report on the test, so ``page`` can screenshot a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def page(browser: Browser, live_server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser context (no cookies) per test, its URLs relative to the live server.

    Uncaught JavaScript errors on any page fail the test: the app's scripts must work in a real
    browser. A failed test leaves a screenshot ``FAILED-<test>.png`` of where it stopped.
    """
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"{tab.url}: {error}"))
    yield tab
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        with contextlib.suppress(Error):  # the page may be gone; the failure itself is what matters
            shot(tab, f"FAILED-{request.node.name}")
    context.close()
    if errors:
        pytest.fail("JavaScript errors in the pages:\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def violations(page: Page) -> Iterator[list[str]]:
    """Chromium's console reports of anything the Content-Security-Policy refused, on every page of the
    test ("Executing inline script violates…", "Applying inline style violates…"): the test fails on any."""
    found: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            found.append(f"{page.url}: {message.text}")

    page.on("console", note)
    yield found
    assert found == [], "\n".join(found)
