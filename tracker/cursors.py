"""Opaque, signed pagination cursors bound to the listing they came from.

A cursor carries the sort key to continue from and the direction, signed with SECRET_KEY and
bound to the project and the status filter. A tampered cursor, or one from another listing
(another tenant's project, another filter), raises BadCursor → 400.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core import signing

from tracker.exceptions import BadCursor

_SALT = "tracker.issue-list.cursor"
_DIRECTIONS = ("older", "newer")


@dataclass(frozen=True)
class Cursor:
    after: int
    direction: str


INVALID = "This page link is invalid."
FOREIGN = "This page link belongs to another list."


def load_bound(
    token: str, *, salt: str, field: str, bound_to: str, invalid: str = INVALID, foreign: str = FOREIGN
) -> dict[str, Any]:
    """The signed dict in ``token`` whose ``field`` is ``bound_to``; BadCursor(invalid/foreign) otherwise.

    Every signed link of the app (issue and order pages, the item browser's pages and item keys)
    opens through here, so a tampered link and a link of another listing fail the same way.
    """
    try:
        data = signing.loads(token, salt=salt)
    except signing.BadSignature as error:
        raise BadCursor(invalid) from error
    if not isinstance(data, dict) or data.get(field) != bound_to:
        raise BadCursor(foreign)
    return data


def encode(*, listing: str, after: int, direction: str) -> str:
    return signing.dumps({"l": listing, "a": after, "d": direction}, salt=_SALT, compress=True)


def decode(token: str | None, *, listing: str) -> Cursor | None:
    """The cursor in ``token`` (None when absent); BadCursor when it is not ours for ``listing``."""
    if not token:
        return None
    data = load_bound(token, salt=_SALT, field="l", bound_to=listing)
    after, direction = data.get("a"), data.get("d")
    if not isinstance(after, int) or after < 1 or direction not in _DIRECTIONS:
        raise BadCursor(INVALID)
    return Cursor(after=after, direction=direction)


_KEY_SALT = "tracker.issue-list.key-cursor"


@dataclass(frozen=True)
class KeyCursor:
    """Where an index page continues: the key DynamoDB resumes after, and which way."""

    key: dict[str, Any]
    backwards: bool


def encode_key(*, listing: str, key: dict[str, Any], backwards: bool = False) -> str:
    """A signed cursor holding an ExclusiveStartKey (DynamoDB JSON), bound to ``listing``."""
    return signing.dumps({"l": listing, "k": key, "b": backwards}, salt=_KEY_SALT, compress=True)


def decode_key(token: str | None, *, listing: str) -> KeyCursor | None:
    """The key cursor in ``token`` (None when absent); BadCursor when it is not ours for ``listing``."""
    if not token:
        return None
    data = load_bound(token, salt=_KEY_SALT, field="l", bound_to=listing)
    key, backwards = data.get("k"), data.get("b")
    if not isinstance(key, dict) or not key or not isinstance(backwards, bool):
        raise BadCursor(INVALID)
    return KeyCursor(key=key, backwards=backwards)
