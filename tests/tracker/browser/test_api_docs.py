"""In a real browser, at 1280 and 390 px: the API's docs page renders Swagger UI from this site's static files under
the site's Content-Security-Policy (no CDN, no inline script), and shows the document's title."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/lead")  # noqa: S108  (copies for the person reviewing the pages)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_docs_page_renders_under_the_csp(page: Page, violations: list[str], width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    outside: list[str] = []
    page.on(
        "request",
        lambda request: outside.append(request.url)
        if "127.0.0.1" not in request.url and "localhost" not in request.url
        else None,
    )
    page.goto("/api/v1/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Tracker API")
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, f"api-docs-{width}"), SHOTS / f"api-docs-{width}.png")
    assert outside == []  # every script, style and font from this site
    assert violations == []
