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


@pytest.mark.parametrize("width", [1280, 390])
def test_an_operation_shows_its_dynamodb_cost_and_its_problems(page: Page, violations: list[str], width: int) -> None:
    """Expanded, an operation lists its x-dynamodb-cost (Swagger's showExtensions) and the problem+json answers."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/api/v1/docs")
    operation = page.locator(".opblock").filter(has_text="/api/v1/teams/{team}/projects").first
    operation.locator(".opblock-summary").first.click()
    expect(operation.locator(".opblock-body")).to_contain_text("x-dynamodb-cost")
    expect(operation.locator(".opblock-body")).to_contain_text("application/problem+json")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"the expanded operation is {wide} px wide at {width} px"  # no sideways scrolling
    out = Path("/tmp/shots/B")  # noqa: S108  (copies for the person reviewing the pages)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, f"api-docs-cost-{width}"), out / f"api-docs-cost-{width}.png")
    assert violations == []
