"""The staff admin's pages in plain form: code shown as code, tables labelled, said once, links that look like links."""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta

import pytest

from ddbmodels import events
from ddbmodels.core import tables
from tests.tracker.helpers import staff_client, text

pytestmark = pytest.mark.ddblocal


def test_the_capacity_page_shows_code_not_backticks() -> None:
    page = text(staff_client("reader").get("/admin/ddb/capacity/"))
    assert "``" not in page
    assert "<code>" in page


def test_the_jobs_page_labels_each_table_with_what_it_is_not_endpoint() -> None:
    now = datetime.now(UTC)
    current = events.EVENTS.table_name("month", now)
    old = events.EVENTS.table_name("month", now - timedelta(days=31 * 8))  # past 3 periods' retention
    made = [name for name in (current, old) if tables.describe_table(name) is None]
    for name in made:
        events.create_events_table(name)
    try:
        page = html.unescape(text(staff_client("operator", may_change=True).get("/admin/ddb/jobs/")))
    finally:  # an old period's table would change other tests' "oldest table left"
        for name in made:
            tables.drop_table(name)
    assert "(endpoint)" not in page
    assert f">{current} — events of {now:%Y-%m} (hot: current or next period)</option>" in page
    assert f"{old} — events of " in page
    assert "(cold, past retention: the next archive run exports and drops it)" in page


def test_the_index_offers_read_only_staff_what_they_can_do_and_no_more() -> None:
    reader = text(staff_client("reader").get("/admin/"))
    for offer in ("browse, edit, delete", "Start a job", "; reconcile"):
        assert offer not in reader
    assert "Tables, indexes, items (browse; read only)" in reader
    assert "Past runs and their results (read only)" in reader
    jobs = text(staff_client("reader2").get("/admin/ddb/jobs/"))
    assert "ddb-job-form" not in jobs
    assert 'id="job-history"' in jobs

    operator = text(staff_client("operator", may_change=True).get("/admin/"))
    for offer in ("browse, edit, delete", "Start a job", "; reconcile"):
        assert offer in operator
    assert "ddb-job-form" in text(staff_client("operator2", may_change=True).get("/admin/ddb/jobs/"))
