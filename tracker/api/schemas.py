"""The shapes every area of the API shares: a problem document, one field's error, a page of a list; and how an
answer's JSON is written (``as_sent``: one resource reads the same in every answer).

Output shapes are ninja ``Schema``s (read from the items the selectors return); request bodies are plain pydantic
models with ``extra="forbid"`` in each router (a ninja ``Schema`` input would take a JSON string: RESEARCH22 R§1).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Generic, TypeVar

from ninja import Schema
from ninja.responses import NinjaJSONEncoder
from pydantic import BaseModel, Field

T = TypeVar("T")


class FieldError(Schema):
    """One field of the request that did not validate: ``field`` is its dotted name as the client sent it."""

    field: str = Field(description="The field, dotted for nested ones (`labels.0`); `body` for the body as a whole.")
    message: str = Field(description="What is wrong with it, in words.")
    code: str = Field(description="A stable code for it (pydantic's error type, e.g. `missing`, `string_too_long`).")


class Problem(Schema):
    """An error as ``application/problem+json`` (RFC 9457), with the error tree's ``code`` and a request id."""

    type: str = Field(description="A URI naming the kind of problem (its code).")
    title: str = Field(description="A short summary of the status.")
    status: int = Field(description="The HTTP status, repeated.")
    detail: str = Field(description="What happened, in words for a person.")
    code: str = Field(description="A stable code a program can switch on: `not_found`, `changed_since_read`, …")
    request_id: str = Field(description="Also the answer's `X-Request-Id` header; quote it when asking for help.")
    errors: list[FieldError] | None = Field(default=None, description="Per-field problems of a request (422).")
    current: dict[str, Any] | None = Field(
        default=None, description="The resource as it is now (409/412), so the client can merge and retry."
    )


class Page(Schema, Generic[T]):
    """One page of a list: ``items`` and opaque cursors to the pages on either side (null at an end).

    The cursors are the pages' (signed, bound to the list, with an age limit): pass one back as ``cursor``. The next
    page's URL is also the answer's ``Link: <…>; rel="next"`` header.
    """

    items: list[T]
    next_cursor: str | None = Field(default=None, description="The next page's cursor; null on the last page.")
    prev_cursor: str | None = Field(default=None, description="The previous page's cursor; null on the first page.")


def _to_the_millisecond(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.replace(microsecond=value.microsecond // 1000 * 1000)
    if isinstance(value, dict):
        return {name: _to_the_millisecond(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_to_the_millisecond(item) for item in value]
    return value


def as_sent(model: BaseModel) -> dict[str, Any]:
    """``model`` as the API sends it, JSON-ready: its fields rendered by ninja's encoder (the one every answer goes
    through), times cut to the millisecond first. Validating the result against the schema and rendering it again
    gives the same JSON (a fixed point), so an answer rendered here and one rendered by ninja agree to the byte."""
    rendered: dict[str, Any] = json.loads(json.dumps(_to_the_millisecond(model.model_dump()), cls=NinjaJSONEncoder))
    return rendered
