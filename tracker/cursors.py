"""The one codec of the app's signed links: every list's page cursors (with an age limit), and item links.

A token is a small dict signed with SECRET_KEY (Django's ``signing``: salted per kind of link,
compressed, timestamped) and bound to the list it came from — a project and its filter, an
issue's comments or history, a person's inbox, an order range, a table and query of the item
browser. Opening one checks, in this order, and each failure is a ``BadCursor`` (a 400 page
that says which): the signature (tampered: "invalid"), the age (issued more than
``CURSOR_MAX_AGE_SECONDS`` ago, a day by default: "expired"), the list ("belongs to another
list"). What a cursor holds past that (a sort key, a LastEvaluatedKey, a page number) is
checked by its list. ddbmodels gives and takes the raw keys; signing them is this layer's.

The issue time is ddbmodels' one clock (``keys.utcnow``): a test that pins the clock pins the
cursors' age too. Item links (``item_links.key_encode``) name one item, not a place in a list
that keeps changing, so they open without an age limit (``max_age=None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import signing

from ddbmodels.core.keys import utcnow
from tracker.exceptions import BadCursor

_SALT = "tracker.issue-list.cursor"
_DIRECTIONS = ("older", "newer")
_LIST = "l"  # the field of every token that names its list

INVALID = "This page link is invalid."
FOREIGN = "This page link belongs to another list."
EXPIRED = "This page link has expired: open the list again from its first page."
AGE_LIMIT = "age limit"  # max_age's default: settings.CURSOR_MAX_AGE_SECONDS, read when a token is opened


class _Signer(signing.TimestampSigner):
    """Django's TimestampSigner on ddbmodels' clock (``keys.utcnow``) instead of the machine's own."""

    def timestamp(self) -> str:
        return signing.b62_encode(int(utcnow().timestamp()))

    def unsign(self, value: str, max_age: float | None = None) -> str:  # type: ignore[override]
        text = signing.Signer.unsign(self, value)  # BadSignature first: an expired forgery is still a forgery
        text, stamp = text.rsplit(self.sep, 1)
        age = utcnow().timestamp() - signing.b62_decode(stamp)
        if max_age is not None and age > max_age:
            raise signing.SignatureExpired(f"signature age {age:.0f} > {max_age} seconds")
        return text


def sign(kind: str, *, listing: str, **fields: Any) -> str:
    """A token of ``kind`` (the salt) holding ``fields`` (JSON-able), bound to ``listing``, issued now."""
    return _Signer(salt=kind).sign_object({_LIST: listing, **fields}, compress=True)


def open_signed(
    token: str,
    *,
    kind: str,
    listing: str,
    max_age: float | str | None = AGE_LIMIT,
    invalid: str = INVALID,
    foreign: str = FOREIGN,
    expired: str = EXPIRED,
) -> dict[str, Any]:
    """The fields of ``token`` (a dict, its list's name included); BadCursor(invalid/expired/foreign) otherwise.

    ``max_age`` in seconds: the setting by default, None for links without an age limit.
    """
    limit = settings.CURSOR_MAX_AGE_SECONDS if max_age == AGE_LIMIT else max_age
    assert limit is None or isinstance(limit, int | float)
    try:
        data = _Signer(salt=kind).unsign_object(token, max_age=limit)
    except signing.SignatureExpired as error:
        raise BadCursor(expired) from error
    except signing.BadSignature as error:
        raise BadCursor(invalid) from error
    except (ValueError, UnicodeDecodeError) as error:  # well signed, not our JSON (never made by us)
        raise BadCursor(invalid) from error
    if not isinstance(data, dict) or data.get(_LIST) != listing:
        raise BadCursor(foreign)
    return data


# --------------------------------------------------------------------- an issue list's cursors


@dataclass(frozen=True)
class Cursor:
    after: int
    direction: str


def encode(*, listing: str, after: int, direction: str) -> str:
    return sign(_SALT, listing=listing, a=after, d=direction)


def decode(token: str | None, *, listing: str) -> Cursor | None:
    """The cursor in ``token`` (None when absent); BadCursor when it is not ours for ``listing``."""
    if not token:
        return None
    data = open_signed(token, kind=_SALT, listing=listing)
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
    return sign(_KEY_SALT, listing=listing, k=key, b=backwards)


def decode_key(token: str | None, *, listing: str) -> KeyCursor | None:
    """The key cursor in ``token`` (None when absent); BadCursor when it is not ours for ``listing``."""
    if not token:
        return None
    data = open_signed(token, kind=_KEY_SALT, listing=listing)
    key, backwards = data.get("k"), data.get("b")
    if not isinstance(key, dict) or not key or not isinstance(backwards, bool):
        raise BadCursor(INVALID)
    return KeyCursor(key=key, backwards=backwards)
