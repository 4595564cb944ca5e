"""The issue's stream: one key for everything kept per issue, built and read in ``ddbmodels.core.keys``."""

from __future__ import annotations

import pytest

from ddbmodels import attachments, comments, inbox
from ddbmodels.core import keys


def test_every_table_keeps_an_issue_s_items_under_its_one_stream() -> None:
    stream = keys.issue_stream("acme", "WEB", 7)
    assert stream == "acme#WEB#7"
    assert comments.issue_stream("acme", "WEB", 7) == stream  # comments and events (the history)
    assert attachments.issue_key("acme", "WEB", 7) == stream
    assert inbox.issue_key("acme", "WEB", 7) == stream  # watchers


def test_a_stream_reads_back_as_its_issue() -> None:
    assert keys.parse_issue_stream(keys.issue_stream("acme-2", "DATA", 1234)) == ("acme-2", "DATA", 1234)
    assert inbox.parse_stream("acme#WEB#7") == ("acme", "WEB", 7)


@pytest.mark.parametrize("stream", ["acme#WEB", "acme#web#7", "acme#WEB#0", "Acme#WEB#7", "acme#WEB#7#x", ""])
def test_anything_else_is_not_a_stream(stream: str) -> None:
    with pytest.raises(ValueError, match="not an issue stream"):
        keys.parse_issue_stream(stream)
