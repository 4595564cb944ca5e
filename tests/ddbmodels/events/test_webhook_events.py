"""Every recorded change has one webhook event name, in the form integrators know, and no two share a name."""

from __future__ import annotations

import re

from ddbmodels.events import KINDS, WEBHOOK_EVENTS, Kind


def test_every_kind_has_a_webhook_event_name() -> None:
    assert set(WEBHOOK_EVENTS) == set(Kind) == set(KINDS)


def test_the_names_are_distinct_and_resource_dot_past_tense() -> None:
    names = list(WEBHOOK_EVENTS.values())
    assert len(set(names)) == len(names)
    for name in names:
        assert re.fullmatch(r"(issue|comment|attachment)\.[a-z_]+", name), name
    assert WEBHOOK_EVENTS[Kind.ISSUE_CREATED] == "issue.created"
    assert WEBHOOK_EVENTS[Kind.ISSUE_STATUS] == "issue.status_changed"
    assert WEBHOOK_EVENTS[Kind.COMMENT_ADDED] == "comment.created"
