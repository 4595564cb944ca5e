"""E-mail: one digest per person per issue per ``NOTIFY_EMAIL_WINDOW_SECONDS`` window.

A delivered notification joins the person's mail window for the issue (``mail_later``); the
first one schedules ``send_digest`` (the Celery task ``tracker.tasks.send_notification_digest``)
for when the window closes, and the digest lists everything the window gathered.

A window whose task was lost (the broker refused it) is queued again by the next notification
10 minutes after it should have closed; one never claimed expires a day after it opened (TTL),
its notifications still in the inbox. A message the mail server refuses puts its notifications
back into a window, sent with the next. A person who turned e-mail (or notifications) off
meanwhile gets no e-mail: the window is claimed and dropped. Costs: ``ddbmodels/inbox/model.py``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from ddbmodels import inbox, preferences
from ddbmodels.core.keys import utcnow
from ddbmodels.preferences import NotifySetting
from tracker import enqueue

log = logging.getLogger("tracker.services.inbox")  # one logger for the inbox, as before it was a package

MAIL_OVERDUE_SECONDS = 600  # a window this long past its close without a digest: its task was lost, queue again


def _issue_path(tenant: str, project_key: str, number: int) -> str:
    return reverse("issue_detail", kwargs={"tenant": tenant, "project": project_key, "number": number})


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
    window_s = mail_window_seconds()
    try:
        window = inbox.window_add(
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
    send = enqueue.task(enqueue.SEND_NOTIFICATION_DIGEST)  # a wrong name is a bug, not a broker that is down
    try:
        send.apply_async(kwargs=task, countdown=window_s if window.opened else 0, retry=False)
    except enqueue.BROKER_ERRORS:  # the window stays: the next notification after it is overdue schedules it
        log.warning("could not queue the e-mail of %s-%s to %s", project_key, number, username, exc_info=True)


def send_digest(
    *, tenant: str, username: str, address: str, project_key: str, number: int, start: str, title: str = ""
) -> dict[str, Any]:
    """The window's e-mail: read its notifications, claim the window, send one message listing them.

    Reads first (GetItem + one Query), then claims (``window_take``: a conditional UpdateItem, then
    a DeleteItem that returns every key the window held, each safe under a lost answer): a DynamoDB
    error before the claim leaves the window for a retry; a second run of the task finds the window
    claimed and sends nothing. Notifications added between the read and the claim are read after
    it. A message the mail server refuses puts its notifications into a new window (``mail_later``),
    so they are sent with the next window's e-mail rather than lost.

    The person's setting is read first, from DynamoDB itself (a consistent GetItem of the team's settings item:
    1 RCU per started 4 KB, ≈ 100 people; never the fan-out's cache, which a save made while its process could
    not reach Redis leaves behind for up to ``PROJECT_CACHE_SECONDS``): with e-mail or notifications off since
    the window opened, the window is claimed and nothing is sent (``dropped``: the notifications it held, which
    stay in the inbox). So turning e-mail off holds at once for every e-mail not sent yet, whatever Redis does.
    """
    where: dict[str, Any] = {"tenant": tenant, "username": username, "project_key": project_key, "number": number}
    setting = preferences.notify_settings(tenant, consistent=True).get(username, NotifySetting())
    if setting.level == "off" or not setting.email:
        dropped = inbox.window_take(**where, start=start)
        return {"sent": 0, "already": dropped is None, "notifications": 0, "dropped": len(dropped or [])}
    seen = inbox.window_keys(**where, start=start)
    if seen is None:
        return {"sent": 0, "already": True, "notifications": 0}
    notes = inbox.notifications_of(tenant=tenant, username=username, event_keys=seen)
    taken = inbox.window_take(**where, start=start)
    if taken is None:
        return {"sent": 0, "already": True, "notifications": 0}
    late = sorted(set(taken) - set(seen))
    if late:
        notes += inbox.notifications_of(tenant=tenant, username=username, event_keys=late)
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
    if not sent:  # the mail server refused or was away: the notifications go back into a window, tried again then
        for note in notes:
            mail_later(
                tenant=tenant,
                username=username,
                address=address,
                project_key=project_key,
                number=number,
                event_key=note.event_key,
                title=title,
            )
    return {"sent": int(sent), "already": False, "notifications": len(notes)}


def digest_subject(notes: list[inbox.Notification], *, reference: str, title: str) -> str:
    """One line (a title with a line break, as an import may store, would make the header invalid)."""
    if len(notes) == 1:
        return " ".join(notes[0].text.split())[:120]
    about = f"{reference} “{' '.join(title.split())}”" if title else reference
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
