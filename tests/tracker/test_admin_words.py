"""The staff admin's pages in plain form: code shown as code, tables labelled, said once, links that look like links."""

from __future__ import annotations

import pytest

from tests.tracker.helpers import staff_client, text

pytestmark = pytest.mark.ddblocal


def test_the_capacity_page_shows_code_not_backticks() -> None:
    page = text(staff_client("reader").get("/admin/ddb/capacity/"))
    assert "``" not in page
    assert "<code>" in page

