"""ETags (tracker/api/etag.py): the version, counts that change off-version, orders; If-None-Match and If-Match."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from django.test import RequestFactory

from ddbmodels.issues import IssueItem, ProjectItem
from tracker.api import etag


def get(**headers: str) -> Any:
    return RequestFactory().get("/api/v1/x", headers=headers)


def test_an_issue_is_tagged_by_its_version() -> None:
    issue = IssueItem(pk="t#WEB", number=3, title="A", status="open", priority="low", reporter="r", version=7)
    assert etag.etag_of(issue) == '"7"'


def test_a_project_tag_changes_with_its_counts_though_the_version_does_not() -> None:
    project = ProjectItem(pk="t#WEB", number=0, name="Web", created_by="r", version=2)
    assert etag.etag_of(project) == '"2"'  # never counted yet
    project.issue_counts = {"open": 3}
    project.counted_at = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
    counted = etag.etag_of(project)
    assert counted.startswith('"2.')
    project.issue_counts = {"open": 4}
    assert etag.etag_of(project) not in (counted, '"2"')


def test_an_order_without_a_version_is_tagged_by_its_status_and_time() -> None:
    order = SimpleNamespace(status="paid", updated_at=datetime(2026, 11, 26, 9, 0, tzinfo=UTC))
    first = etag.etag_of(order)
    order.status = "shipped"
    assert etag.etag_of(order) != first


def test_if_none_match_compares_weakly_and_accepts_lists_and_star() -> None:
    assert not etag.not_modified(get(), '"7"')
    assert etag.not_modified(get(**{"If-None-Match": '"7"'}), '"7"')
    assert etag.not_modified(get(**{"If-None-Match": 'W/"7"'}), '"7"')
    assert etag.not_modified(get(**{"If-None-Match": '"5", "7"'}), '"7"')
    assert etag.not_modified(get(**{"If-None-Match": "*"}), '"7"')
    assert not etag.not_modified(get(**{"If-None-Match": '"6"'}), '"7"')
    answer = etag.not_modified_response('"7"')
    assert (answer.status_code, answer["ETag"], answer.content) == (304, '"7"', b"")


def test_if_match_names_a_version_or_none_at_all() -> None:
    assert etag.if_match(get()) is None
    assert etag.if_match(get(**{"If-Match": "*"})) is None
    assert etag.if_match(get(**{"If-Match": '"12"'})) == 12
    for other in ('W/"12"', "12", '"12", "13"', '"12.abc"', '"x"'):  # matches no version: 412 on write
        assert etag.if_match(get(**{"If-Match": other})) == 0, other
    assert etag.matches(get(), '"3"')
    assert etag.matches(get(**{"If-Match": '"3"'}), '"3"')
    assert not etag.matches(get(**{"If-Match": '"2"'}), '"3"')


def test_a_precondition_failure_is_a_412_problem_with_the_current_resource() -> None:
    answer = etag.precondition_failed('"8"', {"number": 3, "title": "Now", "at": datetime(2026, 1, 1, tzinfo=UTC)})
    body = json.loads(answer.content)
    assert answer.status_code == 412
    assert answer["Content-Type"] == "application/problem+json"
    assert answer["ETag"] == '"8"'
    assert body["code"] == "precondition_failed"
    assert body["current"] == {"number": 3, "title": "Now", "at": "2026-01-01T00:00:00Z"}
