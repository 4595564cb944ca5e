"""An owner in a real browser uploads a small GitHub export and watches its import's bar reach the end (real worker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import issues as ddb_issues
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import WorkerFactory, World
from tests.tracker.import_helpers import expected_numbers, export_bytes, imports_storage, stored_files

pytestmark = [pytest.mark.browser, pytest.mark.slow]

JOB_TIMEOUT_MS = 120_000  # a cold worker process, then the job itself
COUNT = 12  # pull requests 4, 8 and 12; 9 issues, 3 of them (3, 6, 9) with a comment
PHONE: ViewportSize = {"width": 390, "height": 844}


def page_width(page: Page) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


def test_an_owner_uploads_an_export_and_sees_the_bar_reach_done(
    page: Page, world: World, settings: SettingsWrapper, tmp_path: Path, start_worker: WorkerFactory
) -> None:
    folder = imports_storage(settings, tmp_path / "imports")
    start_worker(IMPORTS_DIR=str(folder))
    polls: list[str] = []
    page.on("request", lambda request: polls.append(request.url) if request.url.endswith("/status.json") else None)
    site_login(page, world.owner.username)
    page.goto(world.url())
    page.get_by_role("link", name="Import issues from GitHub").click()
    expect(page.get_by_role("heading", name="Import issues from GitHub")).to_be_visible()
    page.fill("#id_key", "moved")
    page.fill("#id_name", "Moved in")
    page.set_input_files(
        "#id_file", files=[{"name": "issues.json", "mimeType": "application/json", "buffer": export_bytes(COUNT)}]
    )
    shot(page, "import-01-form")
    page.get_by_role("button", name="Upload and import").click()

    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/imports/[0-9A-Z]{{26}}/$"))
    expect(page.locator("#import-what")).to_contain_text(
        "9 issues (numbers up to 11), 3 pull requests skipped, 3 comments"
    )
    summary = page.locator("#import-summary")
    expect(summary).to_be_visible(timeout=JOB_TIMEOUT_MS)  # the script reloads the page once the job is done
    shot(page, "import-02-done")
    bar = page.locator("#import-bar")
    assert bar.get_attribute("value") == bar.get_attribute("max")
    expect(page.locator("#import-state")).to_contain_text("Done: everything is saved.")
    expect(summary).to_contain_text("9 issues and 3 comments saved in MOVED (3 pull requests left out")
    expect(summary).to_contain_text("MOVED-12")
    assert polls, "the progress page's script never asked for the status"
    status = page.request.get(polls[-1]).json()  # what the script read last, asked again
    assert status["status"] == "done"
    assert status["done"] == status["total"] > 0
    assert stored_files(folder) == []

    page.set_viewport_size(PHONE)
    page.reload()
    assert page_width(page) <= PHONE["width"]
    summary.get_by_role("link", name="Go to MOVED").click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/MOVED/"))
    expect(page.get_by_role("link", name="MOVED-11", exact=True)).to_be_visible()
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == expected_numbers(COUNT)
    page.goto(world.url("imports/new/"))
    assert page_width(page) <= PHONE["width"]
