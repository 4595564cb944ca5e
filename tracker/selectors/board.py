"""A project's board as its page shows it: one column per status, each one page of a list index.

Reads: ``issues.board_columns`` — 4 Queries of ``project_status_updated`` (open, in progress,
resolved: 25 rows; closed: 10), ≤ 4 × (0.5–1) RCU and 4 requests, whatever the project's size.
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
from tracker import cursors
from tracker.issue_terms import STATUS_LABELS


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


def column_listing(tenant: str, project_key: str, status: str) -> str:
    """What a column's cursor is bound to."""
    return "|".join([tenant, project_key, "board", status])


def moves(status: str) -> list[str]:
    """The statuses an issue in ``status`` may move to, in the board's order (the workflow's ``TRANSITIONS``)."""
    allowed = TRANSITIONS.get(status, frozenset())
    return [s for s in STATUSES if s in allowed]


def project_board(*, tenant: str, project_key: str, positions: Mapping[str, str | None]) -> Board:
    """The board; ``positions`` holds each paged column's cursor (by status). BadCursor for one not its column's."""
    starts: dict[str, tuple[dict[str, Any], bool] | None] = {}
    for status in STATUSES:
        position = cursors.decode_key(positions.get(status), listing=column_listing(tenant, project_key, status))
        starts[status] = (position.key, position.backwards) if position else None
    pages = ddb_issues.board_columns(tenant=tenant, project_key=project_key, starts=starts)
    columns = []
    for status in STATUSES:
        page = pages[status]
        listing = column_listing(tenant, project_key, status)
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
