"""The ``Link`` header of a list page: the next and previous pages' URLs, absolute, the list's other parameters kept.

A page's body carries its cursors (``next_cursor``, ``prev_cursor``); the header gives the same pages as URLs
(RFC 8288), GitHub's way: ``Link: <https://…/comments?cursor=…>; rel="next", <…>; rel="prev"``. The cursors are the
pages' (``tracker.cursors``: signed, bound to their list, with an age limit), so a URL edited by hand is a 400.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse

CURSOR = "cursor"


def page_url(request: HttpRequest, cursor: str) -> str:
    """This request's URL, absolute, with ``cursor`` in place of its own (every other parameter kept)."""
    params = [(name, value) for name, values in request.GET.lists() if name != CURSOR for value in values]
    params.append((CURSOR, cursor))
    return request.build_absolute_uri(f"{request.path}?{urlencode(params)}")


def set_links(
    request: HttpRequest, response: HttpResponse, *, next_cursor: str | None, prev_cursor: str | None
) -> None:
    """``Link`` with ``rel="next"``/``rel="prev"`` for the cursors there are (no header on a list of one page)."""
    links = [
        f'<{page_url(request, cursor)}>; rel="{rel}"'
        for rel, cursor in (("next", next_cursor), ("prev", prev_cursor))
        if cursor
    ]
    if links:
        response["Link"] = ", ".join(links)
