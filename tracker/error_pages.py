"""Errors as pages, in one place: ddbmodels' domain errors and the web layer's bad requests.

``ErrorPageMiddleware`` (``tracker.middleware``) hands every such error a view raises to
``error_response``, for the site and the admin alike::

    NotFound                         404  404.html
    MilestoneNotOpen                 409  409.html     "milestone v1.2 is being closed / was closed: choose an open one"
    InvalidInput, BadRequest         400  400.html     (BadCursor is a BadRequest)
    AlreadyExists                    409  409.html
    ChangedSinceRead                 409  409.html     what it is now and what was asked, where known
    InvalidTransition                409  409.html
    Contention, Unavailable          503  503.html + Retry-After
    DynamoDB throttled or down       503  the same, as Unavailable (``errors.is_unavailable``)

The admin's pages get the same answers in the admin's chrome (``admin/ddb/error.html``).
A page whose refusals have their own words lists them in ``REFUSALS`` (by URL name), with the
page "back" leads to. Views catch an error only to turn it into a form error on their own form.
"""

from __future__ import annotations

import logging
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from ddbmodels.core import errors
from tracker.exceptions import BadCursor, BadRequest
from tracker.forms.board import BoardForm
from tracker.forms.orders import ORDER_STATUS_LABELS
from tracker.issue_terms import STATUS_LABELS

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5  # Retry-After of every 503: a lost race or a throttled table clears within seconds
ITEM_STALE = "This item changed since you loaded it — reload it and make your change again. Nothing was saved."
ATTACHMENT_STATES = {
    "Attaching": "still being uploaded",
    "Detaching": "already being removed",
    "Detached": "already removed",
}

# ------------------------------------------------------------------------------ where "back" goes


def _kwargs(request: HttpRequest, *names: str) -> dict[str, Any]:
    match = request.resolver_match
    return {name: match.kwargs[name] for name in names} if match else {}


def _issue_page(request: HttpRequest) -> str:
    return reverse("issue_detail", kwargs=_kwargs(request, "tenant", "project", "number"))


CURSOR_PARAMS = ("cursor", "comments", "history")  # where the pages carry their lists' page links


def _first_page(request: HttpRequest) -> str | None:
    """The page asked for without its page links (its lists' first pages); None when it carried none."""
    query = request.GET.copy()
    if not any(name in query for name in CURSOR_PARAMS):
        return None
    for name in CURSOR_PARAMS:
        query.pop(name, None)
    return f"{request.path}?{query.urlencode()}" if query else request.path


def _board_page(request: HttpRequest) -> str:
    """The board a move was posted from: its columns' cursors and milestone (the form action's query) kept."""
    url = reverse("board", kwargs=_kwargs(request, "tenant", "project"))
    form = BoardForm(request.GET)
    kept = form.params() if form.is_valid() else {}
    return f"{url}?{urlencode(kept)}" if kept else url


def _order_page(request: HttpRequest) -> str:
    return reverse("order_detail", kwargs=_kwargs(request, "tenant", "number"))


def _admin_item_page(request: HttpRequest) -> str:
    item_page = reverse("admin:ddb_item", kwargs=_kwargs(request, "table"))
    return f"{item_page}?{urlencode({'key': request.GET.get('key', '')})}"


@dataclass(frozen=True)
class Refusal:
    """How one page words its refused changes, and the page "back" leads to.

    The sentences are ``str.format`` templates over the URL's parts (``tenant``, ``project``,
    ``number`` …), ``reference`` (``WEB-1``) and the error's context, with ``current`` and
    ``wanted`` given as ``labels`` name them (``other`` for a state not in ``labels``).
    """

    back: Callable[[HttpRequest], str]
    back_label: str
    changed: str = ""  # ChangedSinceRead
    not_allowed: str = ""  # InvalidTransition
    unavailable: str = ""  # Unavailable
    unavailable_heading: str = ""  # Unavailable's heading, in the page's words (else "Unavailable")
    labels: Mapping[str, str] = field(default_factory=dict)
    other: str = ""


CHANGED_ISSUE = "This issue changed since you opened it; {outcome}."
REFUSALS: dict[str, Refusal] = {
    "issue_status": Refusal(
        back=_issue_page,
        back_label="Back to {reference}",
        changed=CHANGED_ISSUE.format(outcome="nothing was changed. Look again"),
        not_allowed="{reference} is {current}; it cannot move to {wanted}.",
        labels=STATUS_LABELS,
    ),
    "issue_create": Refusal(
        back=lambda request: reverse("issue_list", kwargs=_kwargs(request, "tenant", "project")),
        back_label="Back to {project}",
        not_allowed="Issues are being imported into {project}; new issues can be created once the import has "
        "finished. Nothing was saved.",
    ),
    "import_new": Refusal(
        back=lambda request: reverse("import_new", kwargs=_kwargs(request, "tenant")),
        back_label="Back to the import form",
        unavailable="{why}",
    ),
    "issue_delete": Refusal(
        back=_issue_page,
        back_label="Back to {reference}",
        changed=CHANGED_ISSUE.format(outcome="it was not deleted"),
        unavailable="{why}",  # a file still uploading, or the history's rest (tracker.services.deleting)
        unavailable_heading="{heading}",  # "Deleting WEB-1 goes on", "Deleting WEB-1 waits for a file"
        labels=STATUS_LABELS,
    ),
    "history_change_remove": Refusal(
        back=_issue_page,
        back_label="Back to {reference}",
        unavailable="{why}",  # the notifications' job could not be queued (tracker.services.history_removal)
        unavailable_heading="{heading}",
    ),
    "board_move": Refusal(
        back=_board_page,
        back_label="Back to the board",
        changed="{why}",  # tracker.views.board's sentences: changed meanwhile, already there, or deleted
        not_allowed="{why}",
        labels=STATUS_LABELS,
    ),
    "order_transition": Refusal(
        back=_order_page,
        back_label="Back to order #{number}",
        changed="Order #{number} changed while you were looking; nothing was changed. Look again.",
        not_allowed="Order #{number} is {current}; it cannot become {wanted}.",
        labels=ORDER_STATUS_LABELS,
    ),
    "attachment_detach": Refusal(
        back=_issue_page,
        back_label="Back to {reference}",
        changed="{filename} is {current}; nothing was changed.",
        labels=ATTACHMENT_STATES,
        other="not attached",
    ),
    "attachment_upload": Refusal(
        back=_issue_page,
        back_label="Back to {reference}",
        unavailable="The file could not be stored, so nothing was attached. Please try again.",
    ),
    "ddb_item_delete": Refusal(back=_admin_item_page, back_label="Reload the item", changed=ITEM_STALE),
    "ddb_jobs": Refusal(
        back=lambda _: reverse("admin:ddb_jobs"), back_label="Back to the jobs", unavailable="{queue_down}"
    ),
    "ddb_tracker_attachments": Refusal(
        back=lambda _: reverse("admin:ddb_tracker_attachments"),
        back_label="Back to the attachments in flight",
        unavailable="{queue_down}",  # only the broker's Unavailable carries it (services.admin.jobs)
    ),
}

# ------------------------------------------------------------------------------ what each error says


@dataclass(frozen=True)
class Answer:
    status: int
    heading: str
    message: str  # the generic sentence, when the page has none of its own


def known(error: Exception) -> Exception:
    """``error`` as the error tree names it: DynamoDB throttled, failing past the bounded retries or not answering
    (botocore's errors, a timeout) is ``Unavailable``; any other error is itself."""
    if not isinstance(error, errors.DomainError | BadRequest) and errors.is_unavailable(error):
        return errors.Unavailable(str(error))
    return error


def answer(error: Exception) -> Answer | None:
    """The status (and the pages' words) of a known error (``known``); None for any other: a 500.

    The one map of statuses: the pages (``error_response``) and the API (``tracker.api.problems``) both read it.
    """
    if isinstance(error, errors.NotFound):
        return Answer(404, "Not found", "There is nothing here, or it is not yours to see.")
    if isinstance(error, errors.MilestoneNotOpen):  # before InvalidInput: a state of the milestone, not bad input
        return Answer(409, "Milestone not open", f"{str(error)[:1].upper()}{str(error)[1:]}. Nothing was changed.")
    if isinstance(error, BadRequest | errors.InvalidInput):
        return Answer(400, "That did not work", str(error))
    if isinstance(error, errors.AlreadyExists):
        return Answer(409, "Already exists", "This already exists; nothing was changed.")
    if isinstance(error, errors.ChangedSinceRead):
        return Answer(409, "Changed since you opened it", "This changed since you opened it; nothing was changed.")
    if isinstance(error, errors.InvalidTransition):
        return Answer(409, "Not possible now", "This change is not possible in its current state; nothing was changed.")
    if isinstance(error, errors.Contention):
        return Answer(503, "Busy", "Too many changes were made here at once; nothing was changed. Please try again.")
    if isinstance(error, errors.Unavailable):
        return Answer(503, "Unavailable", "This cannot be done right now; please try again in a moment.")
    return None  # any other DomainError is a bug to see, not a page: a 500


def _sentence(refusal: Refusal | None, error: Exception) -> str:
    if refusal is None:
        return ""
    if isinstance(error, errors.ChangedSinceRead):
        return refusal.changed
    if isinstance(error, errors.InvalidTransition):
        return refusal.not_allowed
    if isinstance(error, errors.Unavailable):
        return refusal.unavailable
    return ""


def _label(refusal: Refusal | None, code: object) -> str:
    if refusal is None or code is None:
        return ""
    return refusal.labels.get(str(code), refusal.other or str(code))


def _fields(request: HttpRequest, refusal: Refusal | None, error: Exception) -> dict[str, Any]:
    match = request.resolver_match
    fields: dict[str, Any] = dict(match.kwargs) if match else {}
    if "project" in fields and "number" in fields:
        fields["reference"] = f"{fields['project']}-{fields['number']}"
    context = dict(getattr(error, "context", {}))
    fields.update({k: v for k, v in context.items() if k not in fields})
    wanted = context.get("wanted") or context.get("to")
    fields["current"] = _label(refusal, context.get("current"))
    fields["wanted"] = _label(refusal, wanted)
    return fields


def _format(template: str, fields: dict[str, Any]) -> str:
    """``template`` filled in; "" when it needs a field this error does not carry."""
    needed = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return template.format(**fields) if needed <= {k for k, v in fields.items() if v not in (None, "")} else ""


def error_response(request: HttpRequest, error: Exception) -> HttpResponse | None:
    """The page answering ``error`` (a DomainError or a BadRequest); None for any other exception.

    DynamoDB throttling or failing past the bounded retries, or not answering (a connection
    error, a timeout) is the 503 of ``Unavailable`` wherever in the call it surfaced.
    """
    if (named := known(error)) is not error:
        log.warning("DynamoDB unavailable for %s: %s", request.path, error)
        error = named
    if not isinstance(error, errors.DomainError | BadRequest):
        return None
    found = answer(error)
    if found is None:
        return None
    match = request.resolver_match
    refusal = REFUSALS.get(match.url_name or "") if match else None
    fields = _fields(request, refusal, error)
    message = _format(_sentence(refusal, error), fields) or found.message
    heading = found.heading
    if refusal is not None and isinstance(error, errors.Unavailable):
        heading = _format(refusal.unavailable_heading, fields) or heading
    context: dict[str, Any] = {"heading": heading, "message": message, "status": found.status}
    if refusal is not None:
        context.update(back_url=refusal.back(request), back_label=_format(refusal.back_label, fields) or "Back")
    elif isinstance(error, BadCursor) and (first := _first_page(request)):
        context.update(back_url=first, back_label="Back to the first page")  # expired, tampered or another list's
    if isinstance(error, errors.ChangedSinceRead) and "{current}" not in _sentence(refusal, error):
        # What changed: the state it is in now and the one that was asked for, where the error knows them.
        states = (("Now", fields["current"]), ("You asked for", fields["wanted"]))
        context["states"] = [(name, value) for name, value in states if value]
    if match is not None and match.namespace == "admin":
        context.update(admin.site.each_context(request), title=heading)
        response = render(request, "admin/ddb/error.html", context, status=found.status)
    else:
        response = render(request, f"{found.status}.html", context, status=found.status)
    if found.status == 503:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
