"""One clock: pinning ``keys.utcnow`` (the ``fixed_clock`` fixture) pins every reading of the time the app makes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ddbmodels.attachments import new_attachment_id
from tests.conftest import FixedClock
from tracker.imports import jira, plain_csv
from tracker.imports.records import Record
from tracker.selectors import imports as import_selectors

AT = datetime(2026, 3, 1, 9, 30, 15, 123000, tzinfo=UTC)


def test_an_attachment_id_takes_its_time_from_the_clock(fixed_clock: FixedClock) -> None:
    fixed_clock(AT)
    ms = int(AT.timestamp() * 1000)
    assert new_attachment_id()[:10] == new_attachment_id(now_ms=ms)[:10]  # the ULID's 48-bit time


def test_an_imported_issue_without_a_creation_time_is_created_now(fixed_clock: FixedClock) -> None:
    fixed_clock(AT)
    assert Record(number=1, title="x").created == AT
    assert plain_csv.parse("number,title\n1,Crash\n")[0].created == AT
    header = ",".join(jira.HEADER)
    assert jira.parse(f"{header}\nWEB-1,Crash,,Open,Low,,ann,,\n")[0].created == AT


def test_an_upload_is_given_up_by_the_clock(fixed_clock: FixedClock) -> None:
    """``import_progress`` compares the pinned time, not the machine's, with when the upload was queued."""
    queued = AT - import_selectors.UPLOAD_GIVEN_UP + timedelta(seconds=1)  # a second inside the limit

    def progress() -> str:
        state = import_selectors.ImportState(
            import_id="i", tenant="acme", token=1, status="uploading", project="WEB", name="x.csv", file="f",
            size=1, issues=1, pull_requests=0, comments=0, top=0, owner="ann",
            queued_at=queued.isoformat(timespec="seconds"), task_id="t", upload="u",
        )  # fmt: skip
        return str(import_selectors.import_progress(state)["status"])

    fixed_clock(AT)  # still uploading (by the machine's clock, months later: given up)
    assert progress() == "uploading"
