"""The event-kind registry (``ddbmodels.events.kinds``): only registered kinds are written, and each reads as words.

A kind the code writes but nobody registered would show as "changed the issue" in the history and
"changed WEB-1" in the inbox; ``event_item`` refuses it instead, and these tests hold every reader
to every kind.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ddbmodels import events
from ddbmodels.events import KINDS, NOTIFY_KINDS, Kind
from tracker.selectors.activity import sentences
from tracker.services import inbox as inbox_services
from tracker.services.inbox.wording import note_text

WHEN = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SAMPLE_DATA: dict[Kind, dict[str, object]] = {
    Kind.ISSUE_CREATED: {"title": "Crash"},
    Kind.ISSUE_EDITED: {"changed": {"title": ["Crash", "Crash on save"]}},
    Kind.ISSUE_STATUS: {"from": "open", "to": "closed"},
    Kind.ISSUE_DELETED: {},
    Kind.COMMENT_ADDED: {"comment": "k", "mentions": [], "excerpt": "hello"},
    Kind.COMMENT_EDITED: {"comment": "k", "mentions": [], "excerpt": "hello"},
    Kind.COMMENT_DELETED: {"comment": "k", "mentions": [], "excerpt": ""},
    Kind.ATTACHMENT_ADDED: {"filename": "a.png", "size": 3},
    Kind.ATTACHMENT_REMOVED: {"filename": "a.png"},
    Kind.ISSUE_LABELS_RENAMED: {"from": "bug", "to": "defect", "labels": {"added": ["defect"], "removed": ["bug"]}},
}


def item(kind: str) -> dict[str, object]:
    return events.event_item(
        stream="acme#WEB#1", kind=kind, actor="ann", tenant="acme", data=SAMPLE_DATA.get(kind, {}), when=WHEN, shards=1
    )


def test_every_kind_is_described() -> None:
    assert set(KINDS) == set(Kind)
    assert set(SAMPLE_DATA) == set(Kind)
    for kind, info in KINDS.items():
        assert info.meaning, kind
        assert info.carries, kind
        assert set(SAMPLE_DATA[kind]) <= set(info.carries), kind


@pytest.mark.parametrize("kind", list(Kind))
def test_every_registered_kind_is_written_and_read_back_as_itself(kind: Kind) -> None:
    event = events.event_from_item(item(kind))
    assert event.kind == kind
    assert event.data == SAMPLE_DATA[kind]


@pytest.mark.parametrize("kind", ["issue.renamed", "comment.Added", "k", "issue.created "])
def test_an_unregistered_kind_is_refused_before_it_is_written(kind: str) -> None:
    with pytest.raises(ValueError, match=r"register it in ddbmodels\.events\.kinds"):
        item(kind)


@pytest.mark.parametrize("kind", list(Kind))
def test_the_history_has_words_for_every_kind(kind: Kind) -> None:
    said = sentences(events.event_from_item(item(kind)))
    assert said, kind
    assert said != ["changed the issue"], kind  # the words for a kind nobody taught it


@pytest.mark.parametrize("kind", sorted(NOTIFY_KINDS))
def test_the_inbox_has_words_for_every_kind_it_is_told(kind: Kind) -> None:
    text = note_text(kind=kind, actor="ann", data=SAMPLE_DATA[kind], reference="WEB-1", title="Crash", recipient="bob")
    assert text != "ann changed WEB-1", kind  # the words for a kind nobody taught it


def test_the_fan_out_tells_watchers_of_the_registry_s_notifying_kinds() -> None:
    assert inbox_services.NOTIFY_KINDS == NOTIFY_KINDS
    assert set(Kind) - {Kind.COMMENT_DELETED, Kind.ATTACHMENT_REMOVED, Kind.ISSUE_LABELS_RENAMED} == NOTIFY_KINDS
