"""ETags of single resources, ``If-None-Match`` (304) and ``If-Match`` (412): optimistic locking over HTTP.

An ETag is the item's version (its ``VersionAttribute``: issues, projects, comments, milestones, endpoints):
``"7"``. Where a representation changes without the version (a project's or a milestone's counts, refreshed by a
job that leaves the version alone so an editor's form stays current) the tag adds what changed: ``"7.c3f1a2b0"``
(crc32 of the counts and when they were counted). An order has no version: ``"<status>.<updated ms>"``.

A 304 still costs the read that found the item (its GetItem, or nothing on a cached copy): it saves bandwidth and
the rate limit, not DynamoDB. A ``PATCH`` with a stale ``If-Match`` is a 412 with the current resource, nothing
written; without ``If-Match`` it applies to the version a consistent read found (a race with another writer: 409).
"""

from __future__ import annotations

import json
import re
import zlib
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.http import parse_etags, quote_etag

from tracker.api.problems import problem

_VERSION_TAG = re.compile(r'^"(\d{1,18})"$')


def _ms(at: datetime | None) -> int:
    return int(at.timestamp() * 1000) if at is not None else 0


def _counts_of(item: Any) -> str:
    counts = getattr(item, "issue_counts", None)
    raw = counts.as_dict() if counts is not None and hasattr(counts, "as_dict") else (counts or {})
    text = json.dumps(raw, sort_keys=True, default=str) + f"@{_ms(getattr(item, 'counted_at', None))}"
    return f"{zlib.crc32(text.encode()):08x}"


def etag_of(item: Any) -> str:
    """The strong ETag (quoted) of one stored item, as ``ETag`` sends it."""
    version = getattr(item, "version", None)
    if version is None:  # an order: moved along its workflow, never edited
        return quote_etag(f"{getattr(item, 'status', '')}.{_ms(getattr(item, 'updated_at', None))}")
    if getattr(item, "issue_counts", None) is not None:  # a project or a milestone: counts refresh off-version
        return quote_etag(f"{int(version)}.{_counts_of(item)}")
    return quote_etag(str(int(version)))


def if_match(request: HttpRequest) -> int | None:
    """The version ``If-Match`` names: None without the header (or with ``*``: any version); 0 for a tag that names
    no version of ours (a weak tag, a list, another form): no item has version 0, so it matches none (412)."""
    raw = request.headers.get("If-Match")
    if raw is None or raw.strip() == "*":
        return None
    found = _VERSION_TAG.match(raw.strip())
    return int(found.group(1)) if found else 0


def matches(request: HttpRequest, etag: str) -> bool:
    """Whether ``If-Match`` (strong comparison) allows writing over ``etag``; True without the header."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return True
    tags = parse_etags(raw)
    return "*" in tags or etag in tags


def not_modified(request: HttpRequest, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, RFC 9110 §13.1.2): answer 304 then."""
    raw = request.headers.get("If-None-Match")
    if raw is None:
        return False
    tags = [tag.removeprefix("W/") for tag in parse_etags(raw)]
    return "*" in tags or etag.removeprefix("W/") in tags


def not_modified_response(etag: str) -> HttpResponse:
    """A 304 carrying the ETag (and no body)."""
    response = HttpResponse(status=304)
    response["ETag"] = etag
    return response


def precondition_failed(etag: str, current: dict[str, Any]) -> HttpResponse:
    """412 ``precondition_failed`` with the resource as it is now (``current``) and its ``ETag``: nothing written."""
    return problem(
        412,
        "precondition_failed",
        "The resource changed since the version your If-Match names: nothing was written. "
        "`current` is the resource now; send your change again with its ETag.",
        current=current,
        headers={"ETag": etag},
    )
