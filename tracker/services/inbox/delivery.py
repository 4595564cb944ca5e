"""The fan-out of an issue's change: queued by ``fan_out_later``, run by ``fan_out`` in a Celery task.

The request adds the watchers the change implies (``watch_now``: reporter and assignee of a new
issue, a new assignee, a commenter and the members mentioned); the task
(``tracker.tasks.fan_out_event``) adds them only where the request could not, reads the
issue's watchers (one Query), delivers one notification to each watcher but the actor (exactly
once per event, ``ddbmodels.inbox.deliver``) and adds it to the person's mail window
(``digests.mail_later``). Queuing never fails the user's request.

Each person's notification settings in the team (``/t/<team>/settings/notifications/``; one consistent GetItem
of the team's settings a fan-out, cached: ``selectors.preferences.team_notify_settings``) are
honoured: *off* delivers no notification and no e-mail (the person still watches, so turning it
back on brings the next change); *watching* makes the person a watcher of every new issue in the
team (added with the other implied watchers, so each later change reaches them); e-mail off
delivers the notification but adds nothing to a mail window.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import DatabaseError

from ddbmodels import comments, events, inbox
from ddbmodels.core import errors
from ddbmodels.core.keys import issue_stream, parse_time_key, time_key, utcnow
from ddbmodels.events import NOTIFY_KINDS, Kind, new_sort_key
from ddbmodels.issues import IssueItem
from tracker import enqueue, optional_redis
from tracker.markdown import plain_text
from tracker.models import Membership
from tracker.selectors.preferences import team_notify_settings
from tracker.services.inbox.digests import mail_later
from tracker.services.inbox.reading import forget_unread
from tracker.services.inbox.wording import note_text

log = logging.getLogger("tracker.services.inbox")  # one logger for the inbox, as before it was a package

# The kinds that reach an inbox (NOTIFY_KINDS: ddbmodels.events.kinds says which); a comment deleted
# or a file detached does not.
DESCRIPTION_EXCERPT_CHARS = 140  # of the new description, carried by the fan-out task (not the history)


def fan_out_later(issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any], event_key: str | None) -> None:
    """Queue the fan-out of one recorded change; a broker that does not answer is logged, not raised (a bug is)."""
    if kind not in NOTIFY_KINDS:
        return
    if kind == Kind.ISSUE_EDITED and data.get("description"):
        # The history keeps the description's word diff (``diff``, up to 2 KB, words removed included); the
        # notification quotes the new text instead, and nothing in the fan-out reads the diff: it is not queued.
        data = {key: value for key, value in data.items() if key != "diff"}
        data["excerpt"] = plain_text(issue.description)[:DESCRIPTION_EXCERPT_CHARS]
    event: dict[str, Any] = {
        "stream": issue_stream(issue.tenant, issue.project_key, int(issue.number)),
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
        team = team_addresses(issue.tenant)
    except DatabaseError:  # no database here (a job's worker): the fan-out reads the team itself
        log.info("no team for the notifications of %s on %s: the task reads it", kind, event["stream"])
    else:
        event["team"] = team
        event["watchers_added"] = watch_now(issue, kind=kind, actor=actor, data=data, members=team)
    fan_out = enqueue.task(enqueue.FAN_OUT_EVENT)  # a wrong name is a bug, not a broker that is down
    try:
        fan_out.apply_async(kwargs={"event": event}, retry=False)
    except enqueue.BROKER_ERRORS as error:  # the change is saved; its notifications are lost, not the request
        log.warning("could not queue the notifications of %s on %s", kind, event["stream"], exc_info=True)
        optional_redis.failed("queue notifications", error)


def watch_now(issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any], members: dict[str, str]) -> bool:
    """Add the watchers this change implies now, in the request (BatchWriteItem, 2 WCU a new watcher); done?

    Not in the fan-out task: two workers run fan-outs in any order, so a comment's fan-out could read
    the watchers before the issue's creation had added its reporter, who then never heard of the
    comment (found by ``bench/load.py``'s check that every watcher is told). Added here, a watcher
    is in place before the request that made them one answers, so every later change reaches them.
    DynamoDB not answering is logged and left to the task (``False``), never raised: the change is saved.
    """
    try:
        watching = watching_everything(issue.tenant) if kind == Kind.ISSUE_CREATED else set()
    except Exception as error:
        if not errors.is_unavailable(error):
            raise
        log.warning("could not read the notification settings of %s now: the fan-out task adds them", issue.tenant)
        return False
    implied = implied_watchers(
        kind=kind,
        actor=actor,
        data=data,
        reporter=issue.reporter or "",
        assignee=issue.assignee or "",
        watching=watching,
    ) & set(members)
    if not implied:
        return True
    try:
        inbox.watchers_add(
            tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number), usernames=implied
        )
    except Exception as error:
        if not errors.is_unavailable(error):
            raise
        log.warning(
            "could not add the watchers of %s on %s now: the fan-out task adds them", kind, issue.pk, exc_info=True
        )
        return False
    return True


def team_addresses(tenant: str) -> dict[str, str]:
    """The team's members: username → e-mail address ("" when none or not confirmed: nothing is mailed to it).

    One query; an address counts only while it is the one the account confirmed (issue 20, finding 3).
    """
    rows = Membership.objects.filter(tenant__slug=tenant).values_list(
        "user__username", "user__email", "user__confirmed_email__email"
    )
    return {name: email if email and email.strip().lower() == confirmed else "" for name, email, confirmed in rows}


def watching_everything(tenant: str) -> set[str]:
    """The people whose notification level in the team is *watching* (cached, else one consistent GetItem: 1 RCU)."""
    return {name for name, setting in team_notify_settings(tenant).items() if setting.level == "watching"}


def implied_watchers(
    *, kind: str, actor: str, data: dict[str, Any], reporter: str, assignee: str, watching: Iterable[str] = ()
) -> set[str]:
    """Who starts watching because of this change (``watching``: the people who watch every new issue)."""
    if kind == Kind.ISSUE_CREATED:
        return {name for name in (reporter, assignee, *watching) if name}
    if kind == Kind.ISSUE_EDITED:
        change = (data.get("changed") or {}).get("assignee")
        return {change[1]} if change and change[1] else set()
    if kind == Kind.COMMENT_ADDED:
        return {actor, *(data.get("mentions") or [])}
    if kind == Kind.COMMENT_EDITED:
        return set(data.get("mentions") or [])
    return set()


def _quotes_a_deleted_comment(stream: str, kind: str, data: dict[str, Any]) -> bool:
    """A comment deleted before its notifications went out is not quoted by them (issue 20, finding 9).

    GetItem of the comment, consistent — 1 RCU per started 4 KB, for a comment's fan-out only.
    (Deleting rewrites the notifications already delivered: ``tracker.services.deleting``.)
    """
    if kind not in (Kind.COMMENT_ADDED, Kind.COMMENT_EDITED) or not data.get("excerpt") or not data.get("comment"):
        return False
    return comments.comment_get(stream=stream, key=str(data["comment"]), consistent=True) is None


def _removed_from_history(stream: str, event_key: str, kind: str, data: dict[str, Any]) -> str:
    """Who removed a description edit's change from the history before its notifications went out ("": nobody).

    Such an edit's notifications quote none of its words (``wording.note_text``), as those already delivered
    are rewritten (``services.history_removal.description_diff_forget``). GetItem of the event, consistent — 1 RCU per
    started 4 KB, for a description edit's fan-out only.
    """
    if kind != Kind.ISSUE_EDITED or not data.get("description"):
        return ""
    event = events.event_get(stream=stream, t=event_key, period=settings.EVENTS_PERIOD)
    return str((event.data or {}).get("diff_removed_by") or "") if event is not None else ""


def _unquote_if_removed_meanwhile(
    stream: str,
    event_key: str,
    kind: str,
    data: dict[str, Any],
    recipients: list[str],
    *,
    actor: str,
    reference: str,
    title: str,
    assignee: str,
) -> None:
    """A description edit's change removed from the history after this fan-out read its event: what it delivered
    is rewritten without the quote (the removal's own rewrite only reached notes delivered before it).

    The event is read again after delivering (consistent GetItem, 1 RCU per started 4 KB, a description edit's
    fan-out only): a removal that redacted it before this read is seen here; one after it rewrites these notes
    itself (they were delivered by then). Rewriting costs one UpdateItem a recipient, only when it was removed.
    """
    removed_by = _removed_from_history(stream, event_key, kind, data)
    if not removed_by or not recipients:
        return
    tenant = inbox.parse_stream(stream)[0]
    unquoted = {**data, "diff_removed_by": removed_by}
    by_text: dict[str, set[str]] = {}
    for name in recipients:
        said = note_text(
            kind=kind, actor=actor, data=unquoted, reference=reference, title=title, recipient=name, assignee=assignee
        )
        by_text.setdefault(said, set()).add(name)
    for said, names in by_text.items():
        inbox.notifications_redact(tenant=tenant, event_key=event_key, usernames=names, text=said)


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
    watchers_added: bool = False,
) -> dict[str, Any]:
    """The task's work: implied watchers added, watchers read, one notification each but the actor's, e-mails.

    The team's notification settings (one GetItem, cached) decide: *off* gets nothing, *watching*
    watches every new issue, e-mail off gets the notification and no e-mail.

    Only members of the team are notified (and become watchers): ``team`` as it was when the change
    was queued (username → e-mail), or as it is now when not given. ``watchers_added``: the request
    added the implied watchers already (``watch_now``). Running it twice for
    one event delivers nothing twice and mails nothing twice: only people newly delivered to in
    this run go into their mail windows (``mail_later``), and a window is e-mailed once.
    """
    tenant, project_key, number = inbox.parse_stream(stream)
    if _quotes_a_deleted_comment(stream, kind, data):
        data = {**data, "excerpt": ""}
    removed_by = _removed_from_history(stream, event_key, kind, data)
    if removed_by:
        data = {**data, "diff_removed_by": removed_by}
    members = team_addresses(tenant) if team is None else team
    people = team_notify_settings(tenant)
    implied = implied_watchers(
        kind=kind,
        actor=actor,
        data=data,
        reporter=reporter,
        assignee=assignee,
        watching=[name for name, setting in people.items() if setting.level == "watching"],
    ) & set(members)
    if implied and not watchers_added:  # the request could not add them (``watch_now``)
        inbox.watchers_add(tenant=tenant, project_key=project_key, number=number, usernames=implied)
    watching = set(inbox.watchers(tenant=tenant, project_key=project_key, number=number)) | implied
    if kind == Kind.COMMENT_EDITED:
        watching = implied  # an edited comment only tells the people it newly mentions
    recipients = sorted(
        name
        for name in watching
        if name in members and name != actor and (name not in people or people[name].level != "off")
    )
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
    if not removed_by:  # removed while this fan-out ran? (its rewrite skipped notes not delivered yet: R3-9)
        _unquote_if_removed_meanwhile(
            stream, event_key, kind, data, recipients, actor=actor, reference=reference, title=title, assignee=assignee
        )
    forget_unread(tenant, delivery.delivered + delivery.late)
    mailed = [name for name in delivery.delivered if members.get(name) and (name not in people or people[name].email)]
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
