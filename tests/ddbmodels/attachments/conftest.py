"""The attachment tests' fixtures: a table of their own, a blob store in the test's folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ddbmodels.attachments.flow import LocalBlobStore
from tests.ddbmodels.attachments.helpers import fresh_table


@pytest.fixture
def own_table() -> Iterator[None]:
    """A fresh attachments table for this test: the whole in_flight index is the test's."""
    with fresh_table():
        yield


@pytest.fixture
def store(tmp_path: Path) -> LocalBlobStore:
    return LocalBlobStore(tmp_path / "media")
