"""Opaque, signed pagination cursors bound to the listing they came from.

A cursor carries the sort key to continue from and the direction, signed with SECRET_KEY and
bound to the project and the status filter. A tampered cursor, or one from another listing
(another tenant's project, another filter), raises BadCursor → 400.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from tracker.exceptions import BadCursor

_SALT = "tracker.issue-list.cursor"
_DIRECTIONS = ("older", "newer")


@dataclass(frozen=True)
class Cursor:
    after: int
    direction: str


def encode(*, listing: str, after: int, direction: str) -> str:
    return signing.dumps({"l": listing, "a": after, "d": direction}, salt=_SALT, compress=True)


def decode(token: str | None, *, listing: str) -> Cursor | None:
    """The cursor in ``token`` (None when absent); BadCursor when it is not ours for ``listing``."""
    if not token:
        return None
    try:
        data = signing.loads(token, salt=_SALT)
    except signing.BadSignature as error:
        raise BadCursor("This page link is invalid.") from error
    if not isinstance(data, dict) or data.get("l") != listing:
        raise BadCursor("This page link belongs to another list.")
    after, direction = data.get("a"), data.get("d")
    if not isinstance(after, int) or after < 1 or direction not in _DIRECTIONS:
        raise BadCursor("This page link is invalid.")
    return Cursor(after=after, direction=direction)
