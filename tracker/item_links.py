"""Signed links of the item browser: item keys and page cursors, bound to where they belong.

A cursor holds the page number and the start keys of the last ``HISTORY`` pages (the first
page's start is none), so "previous" is one pop away while the history lasts; past it, the page
offers the first page instead. DynamoDB pages only forward (a Scan has no direction), so some
history must travel with the link; bounding it keeps the link short however far one pages.
A cursor is bound to the table, index and query it came from. Tampered, expired or foreign → BadCursor
(``tracker.cursors``, the app's one codec; an item link has no age limit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tracker import item_json
from tracker.cursors import INVALID, open_signed, sign
from tracker.exceptions import BadCursor

_CURSOR_SALT = "tracker.admin.ddb.cursor"
_KEY_SALT = "tracker.admin.ddb.key"


def _wire(key: dict[str, Any]) -> str:
    return json.dumps(item_json.to_json(key), sort_keys=True)


def _unwire(text: Any) -> dict[str, Any]:
    return item_json.from_json(json.loads(text))


HISTORY = 10  # start keys kept in a cursor: "previous" works this many pages back


@dataclass(frozen=True)
class Position:
    """Where a page is: its number (1 = first) and the start keys of the last pages up to it."""

    number: int = 1
    starts: tuple[dict[str, Any] | None, ...] = (None,)

    @property
    def start(self) -> dict[str, Any] | None:
        return self.starts[-1]

    def forward(self, start: dict[str, Any]) -> Position:
        return Position(self.number + 1, (*self.starts, start)[-HISTORY:])

    def back(self) -> Position | None:
        """The previous page's position; None when it is the first page or beyond the history."""
        if self.number <= 1:
            return None
        if len(self.starts) < 2:
            return Position() if self.number == 2 else None
        return Position(self.number - 1, self.starts[:-1])


def cursor_encode(*, binding: str, position: Position) -> str:
    starts = [None if s is None else _wire(s) for s in position.starts]
    return sign(_CURSOR_SALT, listing=binding, n=position.number, s=starts)


def cursor_decode(token: str | None, *, binding: str) -> Position:
    """The page a cursor points at (the first page without one)."""
    if not token:
        return Position()
    data = open_signed(
        token, kind=_CURSOR_SALT, listing=binding, foreign="This page link belongs to another table, index or query."
    )
    number, starts = data.get("n"), data.get("s")
    if (
        not isinstance(number, int)
        or not isinstance(starts, list)
        or not 1 <= len(starts) <= min(number, HISTORY)
        or (number == len(starts)) != (starts[0] is None)  # only a history reaching page 1 starts with none
        or any(s is None for s in starts[1:])
    ):
        raise BadCursor(INVALID)
    try:
        return Position(number, tuple(None if s is None else _unwire(s) for s in starts))
    except (ValueError, TypeError) as error:
        raise BadCursor(INVALID) from error


def key_encode(*, table: str, key: dict[str, Any]) -> str:
    return sign(_KEY_SALT, listing=table, k=_wire(key))


def key_decode(token: str | None, *, table: str) -> dict[str, Any]:
    """The item key in ``token``; BadCursor when it is missing, tampered or for another table."""
    data = open_signed(
        token or "",
        kind=_KEY_SALT,
        listing=table,
        max_age=None,  # an item link names one item: it does not go stale the way a page of a list does
        invalid="This item link is invalid.",
        foreign="This item link belongs to another table.",
    )
    try:
        return _unwire(data.get("k"))
    except (ValueError, TypeError) as error:
        raise BadCursor("This item link is invalid.") from error
