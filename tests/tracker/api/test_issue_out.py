"""The API's one issue renderer: a list row, one issue, JSON-ready and stable through its schema."""

from __future__ import annotations

import json
import typing
from datetime import UTC, datetime

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from ninja.responses import NinjaJSONEncoder

from ddbmodels.issues import PRIORITIES, STATUSES, ImportOrigin, IssueItem, collection_key
from tracker.api.issue_out import IssueOut, IssueSummary, Priority, Status, issue_out, issue_summary

CREATED = datetime(2026, 11, 2, 9, 30, 0, tzinfo=UTC)
UPDATED = datetime(2026, 11, 3, 17, 5, 4, 123456, tzinfo=UTC)


def an_issue(**fields: typing.Any) -> IssueItem:
    values: dict[str, typing.Any] = {
        "title": "Login button does nothing",
        "status": "in_progress",
        "priority": "high",
        "assignee": "alice",
        "reporter": "bob",
        "labels": {"ui", "bug"},
        "created_at": CREATED,
        "updated_at": UPDATED,
        "version": 3,
        "description": "Press it: nothing.",
        **fields,
    }
    return IssueItem(collection_key("acme", "WEB"), 42, **values)


def test_a_summary_is_the_list_row_json_ready_and_without_the_description() -> None:
    assert issue_summary(an_issue()) == {
        "reference": "WEB-42",
        "project": "WEB",
        "number": 42,
        "title": "Login button does nothing",
        "status": "in_progress",
        "priority": "high",
        "assignee": "alice",
        "labels": ["bug", "ui"],
        "reporter": "bob",
        "created_at": "2026-11-02T09:30:00Z",
        "updated_at": "2026-11-03T17:05:04.123Z",  # to the millisecond, as every answer sends times
        "version": 3,
    }


def test_an_unassigned_unlabelled_issue_has_null_assignee_and_no_labels() -> None:
    summary = issue_summary(an_issue(assignee=None, labels=None))
    assert (summary["assignee"], summary["labels"]) == (None, [])


def test_one_issue_adds_description_milestone_by_name_and_its_import() -> None:
    origin = ImportOrigin(source="github", ref="octo/repo#12", url="https://github.com/octo/repo/issues/12", by="bob")
    origin.at = CREATED
    whole = issue_out(an_issue(milestone="m1", imported=origin), {"m1": "v1.2"})
    assert list(whole)[: len(IssueSummary.model_fields)] == list(IssueSummary.model_fields)
    assert whole["description"] == "Press it: nothing."
    assert whole["milestone"] == {"id": "m1", "name": "v1.2"}
    assert whole["imported_from"] == {
        "source": "github",
        "ref": "octo/repo#12",
        "url": "https://github.com/octo/repo/issues/12",
    }


def test_one_issue_without_description_milestone_or_import() -> None:
    whole = issue_out(an_issue(description=None))
    assert (whole["description"], whole["milestone"], whole["imported_from"]) == ("", None, None)


@pytest.mark.parametrize("microsecond", [0, 500, 123_000, 123_456, 999_999])
def test_rendering_again_as_ninja_does_gives_the_same_bytes(microsecond: int) -> None:
    """One resource reads the same in every answer: what these render (a create's answer and its replays, a 412's
    ``current``, a webhook's payload) is what ninja sends for a GET of it (the dict validated again and dumped through
    its encoder), to the byte, whatever the stored time's microseconds."""
    for render, schema in ((issue_summary, IssueSummary), (issue_out, IssueOut)):
        first = render(an_issue(milestone="m1", updated_at=UPDATED.replace(microsecond=microsecond)))
        again = schema.model_validate(first).model_dump()
        assert json.dumps(again, cls=NinjaJSONEncoder) == json.dumps(first)
        assert json.dumps(first, cls=DjangoJSONEncoder) == json.dumps(first)  # nothing left for an encoder to change


def test_the_schemas_enums_are_the_stored_statuses_and_priorities() -> None:
    assert typing.get_args(Status) == STATUSES
    assert typing.get_args(Priority) == PRIORITIES
