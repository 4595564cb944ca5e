"""What an uploaded GitHub issues export holds, read before anything is written (the import form checks it)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ddbmodels.core.errors import InvalidInput
from tracker.imports.records import Record, parse_text

FORMAT = "github"


@dataclass(frozen=True)
class Preview:
    """What an export holds: the issues to import, the pull requests skipped, their comments."""

    records: list[Record]
    pull_requests: int

    @property
    def issues(self) -> int:
        return len(self.records)

    @property
    def comments(self) -> int:
        return sum(len(r.comments) for r in self.records)

    @property
    def top(self) -> int:
        return max((r.number for r in self.records), default=0)


def import_preview(*, data: bytes, name: str) -> Preview:
    """Parse an uploaded GitHub export (nothing written). InvalidInput says what is wrong with it."""
    try:
        text = data.decode("utf-8-sig")
        entries = json.loads(text)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError alike
        raise InvalidInput(f"{name} is not JSON: {error}", path=name) from error
    except RecursionError as error:  # arrays or objects nested thousands deep
        raise InvalidInput(f"{name} is nested too deeply to be a list of issues.", path=name) from error
    if not isinstance(entries, list):
        raise InvalidInput(f"{name} is not a list of issues (GitHub's issues export is a JSON array).", path=name)
    pull_requests = sum(1 for e in entries if isinstance(e, dict) and "pull_request" in e)
    return Preview(records=parse_text(FORMAT, text, name=name), pull_requests=pull_requests)
