"""A project's board as its page shows it: one column per status, each one page of a list index.

Reads: ``issues.board_columns`` — 4 Queries of ``project_status_updated`` (open, in progress,
resolved: 25 rows; closed: 10), ≤ 4 × (0.5–1) RCU and 4 requests, whatever the project's size;
a milestone's board (``?milestone=v1.2``) the same 4 Queries of ``milestone_status``.
Each column pages on its own ("More") by a signed cursor (``tracker.cursors``) bound to the
team, the project and that column's status, so a cursor of one column (or of the issue list)
opened in another is a 400, never another column's rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels.issues import STATUSES, TRANSITIONS, IssueItem
from ddbmodels.milestones import MilestoneItem, by_name
from tracker import cursors
from tracker.issue_terms import STATUS_LABELS
from tracker.selectors.milestones import milestone_list


@dataclass(frozen=True)
class Column:
    """One status of the board: the page of its issues shown and the links to its neighbouring pages."""

    status: str
    label: str
    issues: list[IssueItem]
    next_cursor: str | None
    previous_cursor: str | None
    paged: bool  # showing a later page than the first
    moves: list[tuple[str, str]]  # where its issues may go: (status, label), the workflow's TRANSITIONS


@dataclass(frozen=True)
class Board:
    columns: list[Column]


def column_listing(tenant: str, project_key: str, status: str, milestone: str | None = None) -> str:
    """What a column's cursor is bound to (a milestone's board: its id too)."""
    return "|".join([tenant, project_key, "board", status, *([milestone] if milestone else [])])


def moves(status: str) -> list[str]:
    """The statuses an issue in ``status`` may move to, in the board's order (the workflow's ``TRANSITIONS``)."""
    allowed = TRANSITIONS.get(status, frozenset())
    return [s for s in STATUSES if s in allowed]


def project_board(
    *, tenant: str, project_key: str, positions: Mapping[str, str | None], milestone: str | None = None
) -> Board:
    """The board (of one milestone's issues: its id); ``positions`` holds each paged column's cursor (by status).

    BadCursor for a cursor that is not its column's (another column's, another milestone's, the lists').
    """
    starts: dict[str, tuple[dict[str, Any], bool] | None] = {}
    for status in STATUSES:
        listing = column_listing(tenant, project_key, status, milestone)
        position = cursors.decode_key(positions.get(status), listing=listing)
        starts[status] = (position.key, position.backwards) if position else None
    pages = ddb_issues.board_columns(tenant=tenant, project_key=project_key, starts=starts, milestone=milestone)
    columns = []
    for status in STATUSES:
        page = pages[status]
        listing = column_listing(tenant, project_key, status, milestone)
        columns.append(
            Column(
                status=status,
                label=STATUS_LABELS[status],
                issues=page.issues,
                next_cursor=cursors.encode_key(listing=listing, key=page.next_key) if page.next_key else None,
                previous_cursor=(
                    cursors.encode_key(listing=listing, key=page.prev_key, backwards=True) if page.prev_key else None
                ),
                paged=starts[status] is not None,
                moves=[(to, STATUS_LABELS[to]) for to in moves(status)],
            )
        )
    return Board(columns=columns)


def board_milestones(
    *, tenant: str, project_key: str, name: str | None
) -> tuple[list[MilestoneItem], MilestoneItem | None]:
    """The project's milestones (the board's picker: cached, one Query ≈ 0.5 RCU on a miss) and the one called
    ``name`` (case-insensitive; None when no name is given or none has it)."""
    milestones = milestone_list(tenant=tenant, project_key=project_key)
    return milestones, by_name(milestones, name) if name else None
