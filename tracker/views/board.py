"""A project's board (``/t/<team>/p/<KEY>/board/``): its issues in one column per status; moving a card.

The page is four one-Query columns (``tracker.selectors.board``), each paged on its own by a
signed cursor (``?open=…``); ``?milestone=v1.2`` (the picker above the columns) shows one
milestone's issues the same way. A card shows the list row (number, title, priority, assignee,
labels) and, for members, one button per status the workflow lets it move to: a small form
posting ``n``, ``v`` (the version the board was read at) and ``to`` to ``board/move/``. That is
the whole page without JavaScript and on a phone; ``static/tracker/board.js`` adds dragging a
card between columns where it runs, posting the same form with ``Accept: application/json``.

The move is ``services.issues.issue_change_status`` (the issue page's status change: version
checked, history, counts, points). Answers: a form post goes back to the board with a message;
a fetch gets ``{"status", "version", "moves", "message"}``. Refused — changed since the board
was read, or a move the workflow forbids — nothing changes: a 409 page with the way back to the
board, or for a fetch a 409 ``{"error", "message", "current": {"status", "version", "moves"}}``: the card
goes to the column of the status the issue has now, with its version and moves, so the next move
is not refused again (an issue already where it was asked to go, e.g. a move whose answer was lost
and was sent again, is said to be there already), and the message says why. Viewers see no buttons; their post is a 403.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition, MilestoneNotOpen
from ddbmodels.issues import STATUSES, IssueItem, ProjectItem
from tracker.exceptions import BadRequest
from tracker.forms.board import BoardForm, MoveForm
from tracker.issue_terms import STATUS_LABELS
from tracker.models import Membership
from tracker.selectors.board import Column, board_milestones, moves, project_board
from tracker.selectors.issues import issue_access
from tracker.selectors.labels import catalogue_colours
from tracker.selectors.projects import project_access
from tracker.services import issues as issue_services
from tracker.views.base import tenant_view


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _board_url(membership: Membership, project: ProjectItem, params: dict[str, str] | None = None) -> str:
    """The board's URL with ``params`` (columns' cursors by status, ``milestone``) that have a value."""
    url = reverse("board", kwargs={"tenant": membership.tenant.slug, "project": project.project_key})
    kept = {name: value for name, value in (params or {}).items() if value}
    return f"{url}?{urlencode(kept)}" if kept else url


def _positions(request: HttpRequest) -> dict[str, str]:
    """Each paged column's cursor and the milestone from the query string (a 400 when one is not ours at all)."""
    form = BoardForm(request.GET)
    if not form.is_valid():
        raise BadRequest("This page link is invalid.")
    return form.params()


def _column_links(
    membership: Membership, project: ProjectItem, positions: dict[str, str], column: Column
) -> dict[str, str | None]:
    """A column's "More" and "Previous" links: the other columns stay where they are."""

    def to(cursor: str | None) -> str | None:
        return _board_url(membership, project, {**positions, column.status: cursor}) if cursor else None

    first = _board_url(membership, project, {**positions, column.status: ""}) if column.paged else None
    return {"next_url": to(column.next_cursor), "previous_url": to(column.previous_cursor), "first_url": first}


def _count(counts: dict[str, int] | None, column: Column) -> dict[str, str]:
    """The number a column's heading shows: the project's (or milestone's) count, refreshed a few seconds after
    each change, where the column's first page agrees with it, else what that page shows ("25+": more pages)."""
    known = counts.get(column.status) if counts is not None else None
    shown = len(column.issues)
    agrees = known is not None and (known > shown if column.next_cursor else known == shown)
    if known is not None and (agrees or column.paged):
        return {"count": str(known), "count_title": f"{known} {column.label.lower()} issues"}
    if column.paged:
        return {"count": "", "count_title": ""}
    more = "+" if column.next_cursor else ""
    return {"count": f"{shown}{more}", "count_title": f"{shown}{more and ' or more'} {column.label.lower()} issues"}


@tenant_view
@require_GET
def board(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    positions = _positions(request)
    tenant, key = membership.tenant.slug, project_item.project_key
    milestones, milestone = board_milestones(tenant=tenant, project_key=key, name=positions.get("milestone"))
    if positions.get("milestone") and milestone is None:
        raise BadRequest(f"{key} has no milestone called “{positions['milestone']}”.")
    found = project_board(
        tenant=tenant, project_key=key, positions=positions, milestone=milestone.milestone_id if milestone else None
    )
    if milestone is not None:
        counts: dict[str, int] | None = milestone.counts()
    elif project_item.issue_counts is not None:
        counts = {status: project_item.live_count(status) for status in STATUSES}
    else:
        counts = None
    columns = [
        {
            "column": column,
            **_count(counts, column),
            **_column_links(membership, project_item, positions, column),
        }
        for column in found.columns
    ]
    context = {
        "membership": membership,
        "project": project_item,
        "columns": columns,
        "can_move": membership.allows("member"),
        "label_colours": catalogue_colours(tenant=membership.tenant),  # the chips' colours (cached catalogue)
        "query": urlencode(positions),
        "milestone": milestone,
        "milestones": milestones,
    }
    return render(request, "tracker/board.html", context)


def _refused(
    request: HttpRequest,
    project: ProjectItem,
    asked: IssueItem,
    to: str,
    error: ChangedSinceRead | InvalidTransition,
    sent_version: int,
) -> HttpResponse:
    """Nothing moved: say why, with the issue as it is now (read again: a race may have changed it).

    A fetch gets the 409 JSON; a form post's error is raised again, with these words, for its 409 page.
    """
    try:
        now: IssueItem | None = issue_access(project=project, number=int(asked.number), consistent=True)
    except Http404:  # deleted meanwhile
        now = None
    reference = asked.reference
    wanted = STATUS_LABELS[to]
    fetched = _wants_json(request)  # board.js puts the card where the issue is now, with its version and moves
    if now is None:
        message = f"{reference} was deleted; nothing was moved."
    elif now.status == to and int(now.version or 0) == sent_version:  # there when the board was loaded: no race
        message = f"{reference} is already {wanted}; nothing was done."
    elif now.status == to:  # moved there meanwhile: by someone else, or by this move sent before (its answer lost)
        message = (
            f"{reference} is already {wanted}: it was moved there since the board was loaded "
            "(perhaps by this same move, sent before). Nothing more was done."
        )
    elif isinstance(error, ChangedSinceRead):
        message = f"{reference} changed since the board was loaded: it is now {STATUS_LABELS[now.status]}. " + (
            "Its card is shown there now; this move was not made."
            if fetched
            else "Nothing was moved; reload the board to see it as it is."
        )
    else:
        message = f"{reference} is {STATUS_LABELS[now.status]}; it cannot move to {wanted}. Nothing was moved."
    code = "changed" if isinstance(error, ChangedSinceRead) else "not_allowed"
    if fetched:
        current = (
            {"status": now.status, "version": int(now.version or 0), "moves": moves(now.status)}
            if now is not None
            else None
        )
        return JsonResponse({"error": code, "message": message, "current": current}, status=409)
    # The form's 409 page is the error pages' (tracker.error_pages REFUSALS["board_move"]: these words, the
    # way back to the board where it was paged to), as every other refused change's.
    state = now.status if now is not None else None
    if isinstance(error, ChangedSinceRead):
        raise ChangedSinceRead(message, current=state, wanted=to, why=message) from error
    raise InvalidTransition(message, current=state, to=to, why=message) from error


@tenant_view
@require_POST
def board_move(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot move issues.")
    form = MoveForm(request.POST)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"error": "invalid", "message": form.problem()}, status=400)
        raise BadRequest(form.problem())
    number, version, to = form.cleaned_data["n"], form.cleaned_data["v"], form.cleaned_data["to"]
    issue = issue_access(project=project_item, number=number, consistent=True)  # 404: missing or deleted
    try:
        moved = issue_services.issue_change_status(
            membership=membership, project=project_item, issue=issue, expected_version=version, to=to
        )
    except MilestoneNotOpen as error:  # a reopen inside a milestone being closed: nothing changed
        if not _wants_json(request):
            raise
        current = {"status": issue.status, "version": int(issue.version or 0), "moves": moves(issue.status)}
        message = f"{issue.reference}: {error}. Nothing was moved."
        return JsonResponse({"error": error.code, "message": message, "current": current}, status=409)
    except (ChangedSinceRead, InvalidTransition) as error:  # nothing changed: the answer says why
        return _refused(request, project_item, issue, to, error, version)
    message = f"{moved.reference} is now {STATUS_LABELS[moved.status]}."
    if _wants_json(request):
        return JsonResponse(
            {
                "status": moved.status,
                "version": int(moved.version or 0),
                "moves": moves(moved.status),
                "message": message,
            }
        )
    messages.success(request, message)
    return redirect(_board_url(membership, project_item, _kept_positions(request)))


def _kept_positions(request: HttpRequest) -> dict[str, str]:
    """The cursors and milestone of the board the form was posted from (its action's query string), if sound."""
    form = BoardForm(request.GET)
    return form.params() if form.is_valid() else {}
