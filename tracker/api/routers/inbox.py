"""The token's person's inbox by API: a page of notifications, mark all read, mark one read.

Only ever the calling token's person's own inbox in the token's team (no URL names anybody else's). The same
selector and services as the inbox page: a page is the inbox head's GetItem and one Query, newest first, with the
page's signed cursor (bound to this person's inbox); marking read is ``services.inbox``'s.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Query, Router, Schema
from pydantic import Field

from ddbmodels.events import WEBHOOK_EVENTS
from tracker.api.access import team_access
from tracker.api.idempotency import answer_once, key_header
from tracker.api.openapi import cost
from tracker.api.paging import set_links
from tracker.api.schemas import Page, as_sent
from tracker.selectors.inbox import inbox_page
from tracker.services import inbox as inbox_services

if TYPE_CHECKING:
    from ddbmodels.inbox import Notification

router = Router(tags=["inbox"])

# A notification's id in a URL: its event's sort key with "~" for "#" (as the inbox page's links,
# tracker/urls/inbox.py), so it needs no escaping in a path.
NOTIFICATION_ID_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z~[0-9a-f]{8}")


class NotificationOut(Schema):
    """One notification: a change to an issue the person watches (or was mentioned or assigned in)."""

    id: str = Field(description="Its id (the change's time and a suffix): mark it read at `…/inbox/{id}/read`.")
    type: str = Field(description="What happened, in the webhooks' names: `issue.created`, `comment.created`, …")
    issue: str = Field(description="The issue's reference, e.g. WEB-42.")
    project: str
    number: int
    actor: str = Field(description="Who made the change (username).")
    text: str = Field(description="The notification in words, as the inbox shows it.")
    unread: bool
    at: datetime


class InboxPage(Page[NotificationOut]):
    """A page of the inbox, newest first; ``next_cursor`` is older notifications."""

    unread: int = Field(description="How many notifications are unread in all.")


class PageQuery(Schema):
    cursor: str | None = Field(None, description="A cursor from a page of this list (`next_cursor`).")


def notification_id(event_key: str) -> str:
    return event_key.replace("#", "~")


def event_key_of(note_id: str) -> str:
    """The event key a notification id stands for; Http404 when it is none (as the inbox page's URLs)."""
    if not NOTIFICATION_ID_RE.fullmatch(note_id):
        raise Http404("No such notification.")
    return note_id.replace("~", "#")


def notification_out(note: Notification) -> dict[str, Any]:
    """One notification, JSON-ready; reads nothing."""
    kinds: dict[str, str] = {str(kind): name for kind, name in WEBHOOK_EVENTS.items()}
    return as_sent(
        NotificationOut(
            id=notification_id(note.event_key),
            type=kinds.get(note.kind, note.kind),
            issue=note.reference,
            project=note.project_key,
            number=int(note.number),
            actor=note.actor,
            text=note.text,
            unread=note.unread,
            at=note.at,
        )
    )


@router.get(
    "/teams/{team}/inbox",
    response=InboxPage,
    summary="Your inbox",
    openapi_extra=cost(
        requests=2,
        rcu="0.5 (the inbox head) + 0.5 per 4 KB of the page (25 notifications of ~250 B: 1)",
        note="GetItem of the inbox head, then one Query of the person's notifications, Limit 26.",
    ),
)
def inbox_list(request: HttpRequest, team: str, response: HttpResponse, query: Query[PageQuery]) -> dict[str, Any]:
    """A page of the token's person's notifications in this team, newest first (25 a page), and the unread count."""
    membership = team_access(request, team)
    page = inbox_page(membership=membership, cursor=query.cursor)
    set_links(request, response, next_cursor=page.next_cursor, prev_cursor=None)
    return {
        "items": [notification_out(note) for note in page.notifications],
        "next_cursor": page.next_cursor,
        "prev_cursor": None,
        "unread": page.unread,
    }


class Marked(Schema):
    marked: int = Field(description="How many notifications were unread and are read now.")


@router.post(
    "/teams/{team}/inbox/read",
    response={200: Marked},
    summary="Mark your whole inbox read",
    openapi_extra=cost(
        requests="3 (the key's kept answer, the head's update, the answer kept); a replay 1",
        rcu="1 (the kept answer, consistent)",
        wcu="1 (the inbox head) + 1 (the answer kept a day) + 1 (its index entry): 3 measured; a replay 0",
        note="Idempotent by nature; the Idempotency-Key's first answer (the count) is kept a day and replayed.",
    ),
)
def inbox_read_all(request: HttpRequest, team: str, idempotency_key: str | None = key_header()) -> HttpResponse:
    """Everything in the token's person's inbox up to now is read; the answer says how many were unread. Any token's
    scope will do, `read` too: marking read changes only the caller's own inbox, which every role may do on the inbox
    page (as GitHub's `notifications` scope lets a token that reads notifications mark them read). A `read` token
    changes nothing else."""
    membership = team_access(request, team)

    def run() -> tuple[int, dict[str, Any]]:
        return 200, {"marked": inbox_services.inbox_mark_all_read(membership=membership)}

    return answer_once(request, membership=membership, kind="inbox-read", run=run)


@router.post(
    "/teams/{team}/inbox/{note_id}/read",
    response={200: NotificationOut},
    summary="Mark one notification read",
    openapi_extra=cost(
        requests="5: the kept answer, the notification and the head, its marking (a transaction: refused when it "
        "was read already), the answer kept; a replay 1",
        rcu="1 (the kept answer) + 1 (the notification and the head): 2 measured",
        wcu="4 measured when it was unread (the marking 2 on DynamoDB Local, the answer kept with its index entry "
        "2), 2 when it was read; a replay 0",
        note="Idempotent by nature; the Idempotency-Key's first answer is kept a day and replayed.",
    ),
)
def inbox_read_one(
    request: HttpRequest, team: str, note_id: str, idempotency_key: str | None = key_header()
) -> HttpResponse:
    """The notification is read (404 if the token's person has none of this id); the answer is it, read. Any token's
    scope will do, `read` too, as for the whole inbox: it changes only the caller's own inbox."""
    membership = team_access(request, team)
    event_key = event_key_of(note_id)

    def run() -> tuple[int, dict[str, Any]]:
        note = inbox_services.notification_open(membership=membership, event_key=event_key)
        if note is None:
            raise Http404("No such notification.")
        return 200, {**notification_out(note), "unread": False}

    return answer_once(request, membership=membership, kind="inbox-read-one", run=run)
