"""Watching issues and the inbox: watch/unwatch, the fan-out of an issue's change, marking read.

Every change to an issue is recorded by ``activity.record``, which queues ``fan_out_later``:
a Celery task (``tracker.tasks.fan_out_event``) that adds the watchers the change implies
(reporter and assignee of a new issue, a new assignee, a commenter and the members mentioned),
reads the issue's watchers (one Query), delivers one notification to each watcher but the
actor (exactly once per event, ``ddbmodels.inbox.deliver``) and adds it to the person's mail
window for the issue when they have an address: one e-mail per person per issue per
``NOTIFY_EMAIL_WINDOW_SECONDS`` lists everything the window gathered (``mail_later``,
``send_digest``). Queuing never fails the user's request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import DatabaseError
from django.urls import reverse

from ddbmodels import inbox
from ddbmodels.core.keys import parse_time_key, time_key, utcnow
from ddbmodels.events.model import new_sort_key
from ddbmodels.inbox import mail as inbox_mail
from ddbmodels.issues import IssueItem
from tracker import optional_redis
from tracker.cache import invalidate
from tracker.forms.issues import PRIORITY_LABELS, STATUS_LABELS
from tracker.markdown import plain_text
from tracker.models import Membership

log = logging.getLogger(__name__)

# The kinds that reach an inbox; anything else (a comment deleted, a file detached) does not.
NOTIFY_KINDS = frozenset(
    {
        "issue.created",
        "issue.edited",
        "issue.status",
        "issue.deleted",
        "comment.added",
        "comment.edited",
        "attachment.added",
    }
)
EXCERPT_MAX = 80  # characters of a comment or description a notification quotes
MAIL_OVERDUE_SECONDS = 600  # a window this long past its close without a digest: its task was lost, queue again
DESCRIPTION_EXCERPT_CHARS = 140  # of the new description, carried by the fan-out task (not the history)


def unread_cache_key(tenant: str, username: str) -> str:
    return f"inbox-unread:{tenant}#{username}"


def forget_unread(tenant: str, usernames: Iterable[str]) -> None:
    """Drop the cached unread counts (a Redis error is only logged: the cache expires soon anyway)."""
    keys = [unread_cache_key(tenant, name) for name in usernames]
    if keys:
        invalidate(*keys)


# ------------------------------------------------------------------------ watching


def issue_watch(*, membership: Membership, issue: IssueItem) -> None:
    """Watch the issue (every role: watching changes nothing but one's own inbox). Idempotent."""
    inbox.watch(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        username=membership.user.get_username(),
    )


def issue_unwatch(*, membership: Membership, issue: IssueItem) -> None:
    """Stop watching the issue. Idempotent."""
    inbox.unwatch(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        username=membership.user.get_username(),
    )


def inbox_mark_all_read(*, membership: Membership) -> int:
    """Everything in the inbox up to now is read; the count is 0. How many were unread."""
    username = membership.user.get_username()
    marked = inbox.mark_all_read(tenant=membership.tenant.slug, username=username)
    forget_unread(membership.tenant.slug, [username])
    return marked


def notification_open(*, membership: Membership, event_key: str) -> inbox.Notification | None:
    """The notification (None when there is none), marked read if it was unread."""
    tenant, username = membership.tenant.slug, membership.user.get_username()
    note = inbox.notification_get(tenant=tenant, username=username, event_key=event_key)
    if note is not None and note.unread and inbox.mark_read(tenant=tenant, username=username, event_key=event_key):
        forget_unread(tenant, [username])
    return note


# ------------------------------------------------------------------------ fan-out


def fan_out_later(issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any], event_key: str | None) -> None:
    """Queue the fan-out of one recorded change; a broker that does not answer is logged, never raised."""
    if kind not in NOTIFY_KINDS:
        return
    from tracker.tasks import fan_out_event  # the tasks module imports the services

    if kind == "issue.edited" and data.get("description"):
        # The history records only that the description changed; the notification quotes the new text.
        data = {**data, "excerpt": plain_text(issue.description)[:DESCRIPTION_EXCERPT_CHARS]}
    event = {
        "stream": f"{issue.pk}#{int(issue.number)}",
        "event_key": event_key or new_sort_key(utcnow()),  # the event could not be written: a key of its own
        "kind": kind,
        "actor": actor,
        "data": data,
        "reporter": issue.reporter or "",
        "assignee": issue.assignee or "",
        "title": issue.title or "",
    }
    if optional_redis.paused():  # Redis failed a moment ago: do not make this request wait for it again
        log.warning("Redis is paused: the notifications of %s on %s are not queued", kind, event["stream"])
        return
    try:
        # The team as it is now (username → e-mail, one SQL query), so the worker needs no database.
        event["team"] = team_addresses(issue.tenant)
    except DatabaseError:  # no database here (a job's worker): the fan-out reads the team itself
        log.info("no team for the notifications of %s on %s: the task reads it", kind, event["stream"])
    try:
        fan_out_event.apply_async(kwargs={"event": event}, retry=False)
    except Exception as error:  # noqa: BLE001  (the change is saved; its notifications are lost, not the request)
        log.warning("could not queue the notifications of %s on %s", kind, event["stream"], exc_info=True)
        optional_redis.failed("queue notifications", error)


def team_addresses(tenant: str) -> dict[str, str]:
    """The team's members: username → e-mail address ("" when none)."""
    return dict(Membership.objects.filter(tenant__slug=tenant).values_list("user__username", "user__email"))


def implied_watchers(*, kind: str, actor: str, data: dict[str, Any], reporter: str, assignee: str) -> set[str]:
    """Who starts watching because of this change."""
    if kind == "issue.created":
        return {name for name in (reporter, assignee) if name}
    if kind == "issue.edited":
        change = (data.get("changed") or {}).get("assignee")
        return {change[1]} if change and change[1] else set()
    if kind == "comment.added":
        return {actor, *(data.get("mentions") or [])}
    if kind == "comment.edited":
        return set(data.get("mentions") or [])
    return set()


def note_text(
    *, kind: str, actor: str, data: dict[str, Any], reference: str, title: str, recipient: str, assignee: str = ""
) -> str:
    """What the notification says, in plain words, to ``recipient``."""
    about = f"{reference} “{title}”" if title else reference
    mentions = data.get("mentions") or []
    excerpt = _excerpt(data.get("excerpt"))
    if kind == "issue.created":
        if assignee == recipient:
            return f"{actor} opened {about} and assigned it to you"
        return f"{actor} opened {about}"
    if kind == "issue.edited":
        return _edited_text(actor=actor, data=data, about=about, recipient=recipient)
    if kind == "issue.status":
        before = STATUS_LABELS.get(data.get("from", ""), data.get("from", ""))
        after = STATUS_LABELS.get(data.get("to", ""), data.get("to", ""))
        return f"{actor} moved {about} from {before} to {after}"
    if kind == "issue.deleted":
        return f"{actor} deleted {reference}"
    if kind in ("comment.added", "comment.edited"):
        verb = "mentioned you on" if recipient in mentions else "commented on"
        return f"{actor} {verb} {reference}: {excerpt}" if excerpt else f"{actor} {verb} {reference}"
    if kind == "attachment.added":
        return f"{actor} attached {data.get('filename', 'a file')} to {reference}"
    return f"{actor} changed {reference}"


def _excerpt(value: object) -> str:
    """One line of at most ``EXCERPT_MAX`` characters (an ellipsis when cut)."""
    text = " ".join(str(value or "").split())
    return text if len(text) <= EXCERPT_MAX else text[: EXCERPT_MAX - 1] + "…"


def _edited_clauses(data: dict[str, Any], recipient: str, about: str) -> list[tuple[str, str]]:
    """What an edit changed: per change, its clause naming the issue (said first) and the one after another."""
    changed = data.get("changed") or {}
    clauses: list[tuple[str, str]] = []

    def who(name: str) -> str:
        return "you" if name == recipient else name

    if "assignee" in changed:
        before, after = changed["assignee"]
        if not before:
            clauses.append((f"assigned {about} to {who(after)}", f"assigned it to {who(after)}"))
        elif not after:
            clauses.append((f"unassigned {who(before)} from {about}", f"unassigned {who(before)}"))
        else:
            clauses.append((f"reassigned {about} from {who(before)} to {who(after)}", f"reassigned it to {who(after)}"))
    if "title" in changed:
        title = changed["title"][1]
        clauses.append((f"renamed {about.split(' ', 1)[0]} to “{title}”", f"renamed it to “{title}”"))
    if "priority" in changed:
        before, after = (PRIORITY_LABELS.get(value, value) for value in changed["priority"])
        clauses.append(
            (f"changed the priority of {about} from {before} to {after}", f"changed its priority to {after}")
        )
    labels = data.get("labels") or {}
    for verb, preposition in (("added", "to"), ("removed", "from")):
        names = list(labels.get(verb) or [])
        if names:
            said = f"{verb} {'labels' if len(names) > 1 else 'label'} {', '.join(names)}"
            clauses.append((f"{said} {preposition} {about}", said))
    if data.get("description"):
        excerpt = _excerpt(data.get("excerpt"))
        if "excerpt" in data and not excerpt:
            clauses.append((f"removed the description of {about}", "removed its description"))
        else:
            quoted = f": “{excerpt}”" if excerpt else ""
            clauses.append((f"edited the description of {about}{quoted}", f"edited its description{quoted}"))
    return clauses


def _edited_text(*, actor: str, data: dict[str, Any], about: str, recipient: str) -> str:
    """An edit in a team's words: "alice edited the description of WEB-12 “Title”: “the new text…”".

    The first change names the issue, the others follow ("alice changed the priority of WEB-12
    “Title” from Low to High and edited its description: “…”"); an edit that changed nothing a
    notification tells of is "alice saved WEB-12 “Title”".
    """
    clauses = _edited_clauses(data, recipient, about)
    if not clauses:
        return f"{actor} saved {about}"
    parts = [clauses[0][0], *(later for _, later in clauses[1:])]
    said = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"{actor} {said}"


def fan_out(
    *,
    stream: str,
    event_key: str,
    kind: str,
    actor: str,
    data: dict[str, Any],
    reporter: str = "",
    assignee: str = "",
    title: str = "",
    team: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The task's work: implied watchers added, watchers read, one notification each but the actor's, e-mails.

    Only members of the team are notified (and become watchers): ``team`` as it was when the change
    was queued (username → e-mail), or as it is now when not given. Running it twice for
    one event delivers nothing twice and mails nothing twice: only people newly delivered to in
    this run go into their mail windows (``mail_later``), and a window is e-mailed once.
    """
    tenant, project_key, number = inbox.parse_stream(stream)
    members = team_addresses(tenant) if team is None else team
    implied = implied_watchers(kind=kind, actor=actor, data=data, reporter=reporter, assignee=assignee) & set(members)
    if implied:
        inbox.watchers_add(tenant=tenant, project_key=project_key, number=number, usernames=implied)
    watching = set(inbox.watchers(tenant=tenant, project_key=project_key, number=number)) | implied
    if kind == "comment.edited":
        watching = implied  # an edited comment only tells the people it newly mentions
    recipients = sorted(name for name in watching if name in members and name != actor)
    reference = f"{project_key}-{number}"
    notes = [
        inbox.Note(
            username=name,
            project_key=project_key,
            number=number,
            actor=actor,
            kind=kind,
            text=note_text(
                kind=kind, actor=actor, data=data, reference=reference, title=title, recipient=name, assignee=assignee
            ),
        )
        for name in recipients
    ]
    when = parse_time_key(event_key.partition("#")[0])
    delivery = inbox.deliver(tenant=tenant, event_key=event_key, notes=notes, when=when)
    forget_unread(tenant, delivery.delivered + delivery.late)
    mailed = [name for name in delivery.delivered if members.get(name)]
    for name in mailed:
        mail_later(
            tenant=tenant,
            username=name,
            address=members[name],
            project_key=project_key,
            number=number,
            event_key=event_key,
            title=title,
        )
    return {
        "event": event_key,
        "watchers_added": sorted(implied),
        "delivered": sorted(delivery.delivered),
        "late": sorted(delivery.late),
        "already": sorted(delivery.already),
        "mailed": len(mailed),
        "at": time_key(utcnow()),
    }


def _issue_path(tenant: str, project_key: str, number: int) -> str:
    return reverse("issue_detail", kwargs={"tenant": tenant, "project": project_key, "number": number})


# ------------------------------------------------------------------------ e-mail: one digest per window


def mail_window_seconds() -> int:
    return max(int(settings.NOTIFY_EMAIL_WINDOW_SECONDS), 0)


def mail_later(
    *, tenant: str, username: str, address: str, project_key: str, number: int, event_key: str, title: str
) -> None:
    """Add a delivered notification to the person's mail window for the issue; the first one schedules the digest.

    The digest (``send_digest``) goes when the window closes, ``NOTIFY_EMAIL_WINDOW_SECONDS``
    after it opened, and lists every notification the window gathered: a person gets at most one
    e-mail per issue per window. A window whose digest is overdue (its task was lost: the broker
    failed to take it) is scheduled again by the next notification; the claim keeps it to one.
    A failure is logged: the notification is in the inbox either way.
    """
    from tracker.tasks import send_notification_digest  # the tasks module imports the services

    window_s = mail_window_seconds()
    try:
        window = inbox_mail.window_add(
            tenant=tenant, username=username, project_key=project_key, number=number, event_key=event_key
        )
    except Exception:  # noqa: BLE001  (e-mail is a courtesy copy of the inbox)
        log.warning(
            "could not add %s's notification on %s-%s to a mail window", username, project_key, number, exc_info=True
        )
        return
    overdue = (utcnow() - window.opened_at).total_seconds() > window_s + MAIL_OVERDUE_SECONDS
    if not (window.opened or overdue):
        return
    task = {
        "tenant": tenant,
        "username": username,
        "address": address,
        "project_key": project_key,
        "number": number,
        "start": window.start,
        "title": title,
    }
    try:
        send_notification_digest.apply_async(kwargs=task, countdown=window_s if window.opened else 0, retry=False)
    except Exception:  # noqa: BLE001  (the window stays: the next notification after it is overdue schedules it)
        log.warning("could not queue the e-mail of %s-%s to %s", project_key, number, username, exc_info=True)


def send_digest(
    *, tenant: str, username: str, address: str, project_key: str, number: int, start: str, title: str = ""
) -> dict[str, Any]:
    """The window's e-mail: read its notifications, claim the window, send one message listing them.

    Reads first (GetItem + one Query), then claims (a conditional DeleteItem that returns every
    key the window held): a DynamoDB error before the claim leaves the window for a retry; a
    second run of the task finds the window claimed and sends nothing. Notifications added
    between the read and the claim are read after it.
    """
    where: dict[str, Any] = {"tenant": tenant, "username": username, "project_key": project_key, "number": number}
    seen = inbox_mail.window_keys(**where, start=start)
    if seen is None:
        return {"sent": 0, "already": True, "notifications": 0}
    notes = inbox_mail.notifications_of(tenant=tenant, username=username, event_keys=seen)
    taken = inbox_mail.window_take(**where, start=start)
    if taken is None:
        return {"sent": 0, "already": True, "notifications": 0}
    late = sorted(set(taken) - set(seen))
    if late:
        notes += inbox_mail.notifications_of(tenant=tenant, username=username, event_keys=late)
    notes.sort(key=lambda note: note.event_key)
    if not notes:  # expired or deleted since (offboarding): nothing to tell
        return {"sent": 0, "already": False, "notifications": 0}
    sent = _mail_digest(
        tenant=tenant,
        to=address,
        notes=notes,
        reference=f"{project_key}-{number}",
        title=title,
        issue_path=_issue_path(tenant, project_key, number),
    )
    return {"sent": int(sent), "already": False, "notifications": len(notes)}


def digest_subject(notes: list[inbox.Notification], *, reference: str, title: str) -> str:
    if len(notes) == 1:
        return notes[0].text[:120]
    about = f"{reference} “{title}”" if title else reference
    return f"{len(notes)} updates on {about}"[:120]


def digest_body(notes: list[inbox.Notification], *, link: str) -> str:
    lines = [f"{note.at:%Y-%m-%d %H:%M} UTC  {note.text}" for note in notes]
    window = mail_window_seconds()
    footer = (
        "You get this because you watch this issue (at most one e-mail per issue every "
        f"{_duration(window)}). Unwatch it on its page."
    )
    return "\n".join([*lines, "", link, "", footer])


def _duration(seconds: int) -> str:
    if seconds % 60 == 0 and seconds >= 60:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def _mail_digest(
    *, tenant: str, to: str, notes: list[inbox.Notification], reference: str, title: str, issue_path: str
) -> bool:
    """One e-mail through Django's mail backend; a failure is logged (the inbox has the notifications)."""
    link = f"{settings.SITE_URL.rstrip('/')}{issue_path}"
    try:
        send_mail(
            subject=digest_subject(notes, reference=reference, title=title),
            message=digest_body(notes, link=link),
            from_email=None,
            recipient_list=[to],
        )
    except Exception:  # noqa: BLE001  (e-mail is a courtesy copy of the inbox)
        log.warning("could not e-mail the notifications of %s on %s to %s", tenant, reference, to, exc_info=True)
        return False
    return True
