"""What deleting removes (issue 20, finding 9): a deleted comment's words, a deleted issue's content.

Deleting a **comment** removes its text from the comments table (``comments.comment_delete``),
from its own events (``comment.added`` and each ``comment.edited``: the excerpt goes, the event
stays and the history says "commented (deleted by alice)"), and from the notifications that quoted
it (their text becomes "alice commented on WEB-3; the comment was deleted"); the search document
follows the event. Done in the request, before the comment itself goes, so a request cut short
leaves the comment in place and deleting it again finishes the work (every step is idempotent).

A **description edit's words** (issue 21: its event keeps a word diff, removed words included) leave the
history when its editor or an owner asks: ``services.history_removal``.

Deleting an **issue** removes, before the issue becomes a tombstone (its number stays taken, so the
project's numbers are never given again): every comment, every attachment and its stored file,
every event of its history but the deletion itself (titles, title changes, file names, excerpts:
the team's activity no longer lists them) and the words of every notification about it (each
becomes "WEB-3 was deleted"; read state and unread counts stay as they were). Bounded batches in
the request, in that order, each idempotent; the history goes ``BATCH_EVENTS`` events at a time,
their notifications rewritten and then the events deleted, so a batch done is never redone. One
request does at most ``REQUEST_UPDATES`` notification UpdateItems or ``REQUEST_SECONDS`` of
batches (at least one batch): past that it answers 503 saying how much of the history is left,
and deleting again goes on where it stopped, as after a request cut short (a timeout, a lost
worker): the issue stays in place until the last batch, then becomes the tombstone. An attachment
still uploading is waited for: the delete answers 503 until the upload ends.

A comment is written only while its issue is not a tombstone (``comments.comment_add``'s ConditionCheck
of the issue, in the comment's own transaction), so once the tombstone is committed no comment can be
added. One added while the issue was being deleted (after its comments were swept, before the tombstone)
is removed by ``issue_late_remove``, run after the tombstone: a second consistent sweep of the comments
and of the history (transactions are serializable: such a comment was committed before the tombstone,
so the sweep finds it), its event and notifications' words with it. Left: a comment request whose
comment committed before the tombstone and whose event is written after that sweep (milliseconds apart
in one request); the fan-out then quotes nothing (it reads the comment, gone), but the event keeps its
excerpt.

Out of reach of a per-issue delete: events of periods already archived and dropped (their
archives are rewritten only when a whole team is offboarded), e-mails already sent, and the
notifications of people no longer in the team (who had one is not stored: the team's members and
the issue's watchers are asked).

Costs (DynamoDB's): finding the events is one consistent Query per events table since the comment
(or the issue) was written, 1 RCU per started 4 KB (~13 events); each comment event rewritten 1 WCU
per KB + 1 for its ``by_day`` entry; each notification asked 1 WCU per person (the team's members
and watchers, on up to 8 threads; DynamoDB charges a refused condition too, DynamoDB Local reports
only the rewritten ones); the watchers 0.5 RCU; comments 1 RCU per 4 KB read (consistent) + 1 WCU each;
attachments 1 WCU each (+1 for an in-flight index entry) and a file delete; events 2 WCU each (item
+ ``by_day``). An issue's history, per batch of ``BATCH_EVENTS`` (25) events in a team of P people
(fewer events past 40 people: at most ``BATCH_UPDATES``, 1,000 UpdateItems a batch): 25 × P
UpdateItems (25 × P WCU, on 8 threads) and one BatchWriteItem of 25 deletes (50 WCU); its
events are read once per request (1 RCU per ~13 events, one Query per events table). Measured on
DynamoDB Local, a comment with one event in a team of 3, one events table: 1 RCU (ListTables + one
Query) + 0.5 RCU (watchers) + 2 WCU (the event) + 3 UpdateItems (3 WCU on DynamoDB, 1 reported by
Local) on top of the delete itself; a batch of an issue's history in a team of 3: 75 UpdateItems
and one BatchWriteItem of 50 WCU (tests/tracker/test_deleting.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ddbmodels import attachments, comments, events, inbox
from ddbmodels.comments import CommentItem
from ddbmodels.core.errors import Unavailable
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from tracker.models import Membership
from tracker.selectors.activity import issue_stream
from tracker.services.attachments import DjangoBlobStore

COMMENT_KINDS = (Kind.COMMENT_ADDED, Kind.COMMENT_EDITED)
BATCH_EVENTS = 25  # events whose notifications are rewritten, then deleted (one BatchWriteItem), as one step
BATCH_UPDATES = 1_000  # fewer events a batch in a team of over 40 people (~1 s of UpdateItems on 8 threads)
REQUEST_UPDATES = 20_000  # notification UpdateItems one request may send (~10-20 s on DynamoDB, 8 threads)
REQUEST_SECONDS = 15.0  # no new batch is started past this: the rest waits for the next delete


def _people(issue: IssueItem) -> set[str]:
    """Who could have been told of the issue: the team's members (one SQL query) and its watchers (one Query)."""
    members = set(Membership.objects.filter(tenant__slug=issue.tenant).values_list("user__username", flat=True))
    watching = inbox.watchers(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))
    return members | set(watching)


def comment_forget(*, issue: IssueItem, comment: CommentItem, by: str) -> int:
    """Take a comment's words out of its events and the notifications that quoted them; how many events."""
    stream = issue_stream(issue)
    found = [
        event
        for event in events.stream_events_all(stream=stream, since=comment.key.partition("#")[0])
        if event.kind in COMMENT_KINDS and (event.data or {}).get("comment") == comment.key
    ]  # the issue's events since the comment was written, those about it kept (bounded by that stream)
    if not found:
        return 0
    people = _people(issue)
    for event in found:
        data = {key: value for key, value in (event.data or {}).items() if key != "excerpt"}
        events.event_redact(table=event.table, stream=stream, t=event.t, data={**data, "deleted_by": by})
        text = f"{event.actor} commented on {issue.reference}; the comment was deleted"
        inbox.notifications_redact(tenant=issue.tenant, event_key=event.t, usernames=people, text=text)
    return len(found)


@dataclass(frozen=True)
class Removed:
    """What deleting an issue removed (for its message and the tests)."""

    comments: int
    attachments: int
    events: int


def issue_content_remove(*, issue: IssueItem) -> Removed:
    """Remove a to-be-deleted issue's comments, attachments and files, events and notifications' words.

    Unavailable (a 503: try again) while an attachment is still uploading, or when this request's
    share of the history (``REQUEST_UPDATES``, ``REQUEST_SECONDS``) is used up; everything removed
    so far stays removed, and the next run goes on from there.
    """
    stream, deadline = issue_stream(issue), time.monotonic() + REQUEST_SECONDS
    removed_comments = comments.comments_delete_all(stream=stream)
    files, uploading = attachments.remove_all(
        DjangoBlobStore(), tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number)
    )
    if uploading:
        raise Unavailable(
            "a file is still being attached to the issue; try again in a minute",
            issue=issue.pk,
            heading=f"Deleting {issue.reference} waits for a file",
            why=f"A file is still being attached to {issue.reference}; nothing more was removed. "
            "Delete it again in a minute to go on; what was removed stays removed.",
        )
    history = [event for event in events.stream_events_all(stream=stream) if event.kind != Kind.ISSUE_DELETED]
    people = _people(issue)
    size, sent = max(1, min(BATCH_EVENTS, BATCH_UPDATES // max(len(people), 1))), 0
    for start in range(0, len(history), size):
        batch = history[start : start + size]
        over = sent + len(batch) * len(people) > REQUEST_UPDATES or time.monotonic() > deadline
        if start and over:  # at least one batch a request, so every delete advances
            raise Unavailable(
                "deleting the issue goes on",
                issue=issue.pk,
                heading=f"Deleting {issue.reference} goes on",
                why=f"This try removed {start} events of the history of {issue.reference} and "
                f"{len(history) - start} are left. Delete it again to go on; what was removed stays removed.",
            )
        for event in batch:  # the words first, then the events: a batch cut short is found again
            inbox.notifications_redact(
                tenant=issue.tenant,
                event_key=event.t,
                usernames=people,
                text=f"{issue.reference} was deleted",
                kind=Kind.ISSUE_DELETED,
            )
        events.events_delete_many((event.table, stream, event.t) for event in batch)
        sent += len(batch) * len(people)
    return Removed(comments=removed_comments, attachments=files, events=len(history))


def issue_late_remove(*, issue: IssueItem) -> Removed:
    """After the tombstone: remove what was added while the issue was being deleted (comments, their events).

    One consistent Query of the comments (0.5 RCU when none: the usual case) and one consistent Query per
    events table that exists (≈ 1 RCU each: the history is gone by then); for each event found,
    its notifications' words rewritten (one UpdateItem per person) and the events deleted (2 WCU each).
    """
    stream = issue_stream(issue)
    removed_comments = comments.comments_delete_all(stream=stream)
    late = [event for event in events.stream_events_all(stream=stream) if event.kind != Kind.ISSUE_DELETED]
    if late:
        people = _people(issue)
        for event in late:
            inbox.notifications_redact(
                tenant=issue.tenant,
                event_key=event.t,
                usernames=people,
                text=f"{issue.reference} was deleted",
                kind=Kind.ISSUE_DELETED,
            )
        events.events_delete_many((event.table, stream, event.t) for event in late)
    return Removed(comments=removed_comments, attachments=0, events=len(late))
