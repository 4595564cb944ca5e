"""Signed tokens of the item browser: item keys and page cursors, bound to where they belong.

A cursor holds the stack of page start keys (first page: none), so "previous" is one pop away;
it is bound to the table, index and query it came from. Anything tampered or foreign → BadCursor.
"""

from __future__ import annotations

import json
from typing import Any

from django.core import signing

from tracker.admin.browser import ddb
from tracker.exceptions import BadCursor

_CURSOR_SALT = "tracker.admin.ddb.cursor"
_KEY_SALT = "tracker.admin.ddb.key"


def _wire(key: dict[str, Any]) -> str:
    return json.dumps(ddb.to_json(key), sort_keys=True)


def _unwire(text: Any) -> dict[str, Any]:
    return ddb.from_json(json.loads(text))


def cursor_encode(*, binding: str, starts: list[dict[str, Any] | None]) -> str:
    data = {"b": binding, "s": [None if s is None else _wire(s) for s in starts]}
    return signing.dumps(data, salt=_CURSOR_SALT, compress=True)


def cursor_decode(token: str | None, *, binding: str) -> list[dict[str, Any] | None]:
    """The start keys of the pages up to the current one ([None] for the first page)."""
    if not token:
        return [None]
    try:
        data = signing.loads(token, salt=_CURSOR_SALT)
    except signing.BadSignature as error:
        raise BadCursor("This page link is invalid.") from error
    if not isinstance(data, dict) or data.get("b") != binding:
        raise BadCursor("This page link belongs to another table, index or query.")
    starts = data.get("s")
    if not isinstance(starts, list) or not starts or starts[0] is not None:
        raise BadCursor("This page link is invalid.")
    try:
        return [None, *(_unwire(s) for s in starts[1:])]
    except (ValueError, TypeError) as error:
        raise BadCursor("This page link is invalid.") from error


def key_encode(*, table: str, key: dict[str, Any]) -> str:
    return signing.dumps({"t": table, "k": _wire(key)}, salt=_KEY_SALT, compress=True)


def key_decode(token: str | None, *, table: str) -> dict[str, Any]:
    """The item key in ``token``; BadCursor when it is missing, tampered or for another table."""
    try:
        data = signing.loads(token or "", salt=_KEY_SALT)
    except signing.BadSignature as error:
        raise BadCursor("This item link is invalid.") from error
    if not isinstance(data, dict) or data.get("t") != table:
        raise BadCursor("This item link belongs to another table.")
    try:
        return _unwire(data.get("k"))
    except (ValueError, TypeError) as error:
        raise BadCursor("This item link is invalid.") from error
