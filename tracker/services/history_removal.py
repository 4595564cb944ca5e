"""Removing a description edit's change from an issue's history (issue 21; review 3: R3-8, R3-9, R3-10).

A description edit's ``issue.edited`` event keeps a word diff (``services.issues.issue_update``: the words the
description lost and gained), and its notifications quote the new description's first words
(``inbox.fan_out_later``'s excerpt). Its editor or an owner may take the change back out of the history
(``description_diff_forget``): a pasted secret then leaves

- the edit's own event (its ``diff`` goes: ``events.event_redact``; the history says "edited the description
  (the change was removed from the history by alice)");
- every LATER description edit up to the one that took the words out again: while the description still held them,
  a later edit's diff kept them as unchanged context and its notification quoted them; the edit that took them
  out shows them removed. Those edits lose their diff too. Which edits: the issue's events just after the removed
  one (one consistent Query page, ``LATER_EDITS_READ`` events: ``events.stream_events_after``), oldest first,
  until every word the removed edit added has been taken out by one of them (when that page ends first, the page
  says edits after those may still show the words: ``Forgot.window_ended``). A word is compared by a short hash
  (``_hashes``): a removed change keeps the hashes of the words it added and took out (never the words), so a
  removal made before (of the edit that took them out, say) still ends the walk there;
- the notifications of each of those edits: rewritten without their quote, naming who removed the change
  (``_unquote``: one UpdateItem per member or watcher and edit), so the inbox and the e-mail of a mail window still
  open (its digest reads the notifications when it is sent) no longer quote them. A fan-out still queued quotes
  nothing (it reads the event first); one running meanwhile reads the event again after delivering and rewrites
  what it delivered (``delivery.fan_out``). E-mails already sent keep the words: the page says so beside the button.

Costs: the event read by its key (1 RCU per started 4 KB, ``selectors.activity.description_edit``); the later
events, one consistent Query page (1 RCU per started 4 KB, ≤ ``LATER_EDITS_READ`` events: ≈ 4 RCU with a few edits
at the 2 KB diff cap); each event redacted 1 WCU per started KB + as much for its ``by_day`` entry (≤ 3 + 3 WCU at
the cap); the notifications, one UpdateItem (1 WCU) per person asked (the team's members and the issue's watchers)
and edit: done in the request up to ``REQUEST_UNQUOTES`` UpdateItems, else by the job ``history_unquote``
(``tracker.tasks``), queued by the request, so a team of 2,000 makes the removal cost the request ≈ 10 WCU and the
job 2,000 WCU an edit. The events go first, then the notifications: a request cut short (or a job that could not
be queued: a 503) is finished by removing the change again, which finds the edits again and rewrites their
notifications again (idempotent).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied

from ddbmodels import events, inbox
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import issue_stream
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from tracker import enqueue
from tracker.models import Membership
from tracker.services.inbox.wording import note_text
from tracker.services.permissions import require_role

LATER_EDITS_READ = 50  # the events after a removed edit read for the later edits it reaches (one Query page)
REQUEST_UNQUOTES = 200  # notification UpdateItems a removal makes in the request; past that the job makes them
HASHES_KEPT = 100  # word hashes a removed change keeps of each side (added, taken out): ≤ 600 B each
HASH_CHARS = 6  # a word's hash: 6 hex digits (24 bits), all of a side's in one string
ADDED, TAKEN = "diff_added", "diff_taken"  # the hashes of the words a removed change added / took out
_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class Forgot:
    """What a removal did: this edit's change removed now (False: it was before), later edits' changes removed
    now with it, whether their notifications wait for the job, and whether the later edits read
    (``LATER_EDITS_READ`` events) ended before one took the words out: edits after those may still show them."""

    removed: bool
    later: int
    queued: bool
    window_ended: bool = False


def _hashes(diff: object, marks: str) -> set[str]:
    """The short hashes (``HASH_CHARS`` hex digits) of the words of ``diff``'s ops marked so ("+": added, "-": taken
    out). A hash, not the word: a removed change keeps them, and 24 bits of a secret say nothing of it."""
    if not isinstance(diff, list):
        return set()
    words = {word for op in diff if isinstance(op, str) and op[:1] in marks for word in _WORD_RE.findall(op[1:])}
    return {hashlib.blake2b(word.encode(), digest_size=8).hexdigest()[:HASH_CHARS] for word in words}


def _kept(hashes: set[str]) -> str:
    """At most ``HASHES_KEPT`` hashes as one string (a removed change's ``diff_added`` / ``diff_taken``)."""
    return "".join(sorted(hashes)[:HASHES_KEPT])


def _words(data: dict[str, Any], marks: str, kept: str) -> set[str]:
    """The hashes of the words an edit added or took out: from its diff, or those kept when it was removed."""
    if "diff" in data:
        return _hashes(data["diff"], marks)
    held = str(data.get(kept) or "")
    return {held[at : at + HASH_CHARS] for at in range(0, len(held), HASH_CHARS)}


def _later_reached(event: events.Event, added: set[str]) -> tuple[list[events.Event], bool]:
    """The description edits after ``event`` up to the one that took the last of ``added`` out, oldest first, and
    whether the window (``LATER_EDITS_READ`` events) was read to its end with words still not taken out."""
    if not added:
        return [], False
    left, reached = set(added), []
    later = events.stream_events_after(
        stream=event.stream, after=event.t, limit=LATER_EDITS_READ, period=settings.EVENTS_PERIOD
    )
    for found in later:
        data = found.data or {}
        if found.kind != Kind.ISSUE_EDITED or not data.get("description"):
            continue
        if "diff" not in data and "diff_removed_by" not in data:
            continue  # an edit from before diffs were kept: it shows no words
        reached.append(found)
        left -= _words(data, "-", TAKEN)
        if not left:
            break
    return reached, bool(left) and len(later) >= LATER_EDITS_READ


def _redact(event: events.Event, by: str) -> bool:
    """The event without its diff, naming who removed it and keeping its words' hashes; False when gone already."""
    data = dict(event.data or {})
    if "diff" not in data:
        return False
    diff = data.pop("diff")
    kept = {key: _kept(_hashes(diff, mark)) for key, mark in ((ADDED, "+"), (TAKEN, "-"))}
    return events.event_redact(
        table=event.table, stream=event.stream, t=event.t, data={**data, **kept, "diff_removed_by": by}
    )


def people_of(issue: IssueItem) -> set[str]:
    """Who could have been told of the issue: the team's members (one SQL query) and its watchers (one Query)."""
    members = set(Membership.objects.filter(tenant__slug=issue.tenant).values_list("user__username", flat=True))
    watching = inbox.watchers(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))
    return members | set(watching)


def description_diff_forget(*, membership: Membership, issue: IssueItem, event: events.Event) -> Forgot:
    """Take a description edit's change out of the history, with the later edits that still showed its words.

    The later edits first (each one's own diff goes), then the edit itself, then the notifications of all of
    them (in the request, or queued: ``REQUEST_UNQUOTES``). A replay (the edit removed already) walks the later
    edits again by the hashes kept and rewrites the notifications again: it finishes a request cut short.
    PermissionDenied (403) for viewers and for members who did not make that edit; Unavailable (503) when the
    job that rewrites the notifications could not be queued (the history is clean already; removing it again
    finishes it).
    """
    require_role(membership, "member")
    by = membership.user.get_username()
    if event.actor != by and not membership.allows("owner"):
        raise PermissionDenied("Only the person who made the change, or an owner, can remove it from the history.")
    data = dict(event.data or {})
    reached, window_ended = _later_reached(event, _words(data, "+", ADDED))
    later = sum(_redact(found, by) for found in reached)
    removed = _redact(event, by)
    if not (removed or "diff_removed_by" in data):  # an edit from before diffs were kept: nothing to take out
        return Forgot(removed=False, later=later, queued=False, window_ended=window_ended)
    queued = _unquote_all(issue, [event.t, *(found.t for found in reached)])
    return Forgot(removed=removed, later=later, queued=queued, window_ended=window_ended)


def _unquote_all(issue: IssueItem, keys: list[str]) -> bool:
    """Rewrite the edits' notifications here, or queue the job when they are too many for a request; queued?"""
    people = sorted(people_of(issue))
    where: dict[str, Any] = {"tenant": issue.tenant, "project_key": issue.project_key, "number": int(issue.number)}
    if len(people) * len(keys) <= REQUEST_UNQUOTES:
        notifications_unquote(
            tenant=issue.tenant,
            project_key=issue.project_key,
            number=int(issue.number),
            event_keys=keys,
            usernames=people,
        )
        return False
    try:
        enqueue.task(enqueue.HISTORY_UNQUOTE).apply_async(
            kwargs={**where, "event_keys": keys, "usernames": people}, retry=False
        )
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable(
            "the notifications of a removed change could not be queued for rewriting",
            issue=issue.pk,
            heading="The notifications still quote the change",
            why=f"The change is out of the history of {issue.reference}, but the job that takes it out of "
            f"{len(people)} people's notifications could not be started. Remove it again in a minute to finish.",
        ) from error
    return True


def notifications_unquote(
    *, tenant: str, project_key: str, number: int, event_keys: Iterable[str], usernames: Iterable[str]
) -> int:
    """Rewrite the notifications of removed description edits without their quote; how many were (the job's work).

    Each edit is read again by its key (consistent GetItem, 1 RCU per started 4 KB): only one whose change is
    removed is rewritten. Each person's text is what the fan-out said (``wording.note_text``: "alice changed the
    priority of WEB-3 … and edited its description"), without the quote, naming who removed the change. The title
    the issue had then is not kept (unless the edit changed it): the issue is named by its key. One UpdateItem per
    person and edit (1 WCU each, on up to 8 threads).
    """
    stream, reference, names = issue_stream(tenant, project_key, number), f"{project_key}-{number}", sorted(usernames)
    rewritten = 0
    for key in event_keys:
        event = events.event_get(stream=stream, t=key, period=settings.EVENTS_PERIOD)
        if event is None or not (event.data or {}).get("diff_removed_by"):
            continue
        rewritten += unquote(tenant=tenant, reference=reference, event=event, usernames=names)
    return rewritten


def unquote(*, tenant: str, reference: str, event: events.Event, usernames: Iterable[str]) -> int:
    """Rewrite these people's notifications of one removed edit without the quote; how many were."""
    data = {key: value for key, value in (event.data or {}).items() if key != "diff"}
    changed_title = (data.get("changed") or {}).get("title")
    title = str(changed_title[1]) if changed_title else ""
    by_text: dict[str, set[str]] = {}
    for name in usernames:
        said = note_text(
            kind=event.kind, actor=event.actor, data=data, reference=reference, title=title, recipient=name
        )
        by_text.setdefault(said, set()).add(name)
    return sum(
        len(inbox.notifications_redact(tenant=tenant, event_key=event.t, usernames=names, text=said))
        for said, names in by_text.items()
    )
