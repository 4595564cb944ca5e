"""A project's board: its live issues by status, one column per status, each column one page of a list index.

    column        index project_status_updated  PK xs = "<tenant>#<PROJECT>#<status>"  SK ua (newest first)
    … of a milestone   index milestone_status   PK xm = "<tenant>#<PROJECT>#<id>#<status>"  SK n (newest first)

A column is the project list of that status sorted by last update (``lists.status_list``), so a
board costs what its columns cost and nothing grows with the project: closed issues (the
biggest partition of an old project) are read only as far as their column's page. The rows are
the index's projection (``LIST_ATTRIBUTES``: title, status, priority, assignee, labels, the
version a move is checked against), never the description.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.issues.lists import IssuePage, status_list
from ddbmodels.issues.model import STATUSES

# Issues a column shows at once; the closed column shows fewer (a project's history, not its work).
COLUMN_SIZES: dict[str, int] = {"open": 25, "in_progress": 25, "resolved": 25, "closed": 10}


@capacity.access_pattern("board.columns")
def board_columns(
    *,
    tenant: str,
    project_key: str,
    starts: Mapping[str, tuple[dict[str, Any], bool] | None] | None = None,
    sizes: Mapping[str, int] | None = None,
    milestone: str | None = None,
) -> dict[str, IssuePage]:
    """4 Queries of project_status_updated, Limit size+1 each — ≤ 4 × (0.5–1) RCU, 4 requests (25 + 25 + 25 + 10 rows).

    One Query per status (``STATUSES``, in that order), newest update first: each reads its
    column's rows plus one (the one that tells whether a next page exists), ≈ 150–300 bytes an
    entry, so 0.5 RCU per started 4 KB of each column — 26 rows ≈ 4–8 KB: 0.5–1 RCU a column,
    the same at 1,000 or 100,000 issues. An empty column still costs its request (0.5 RCU).
    ``starts`` continues a column from a key (and reads backwards when its flag is set), as the
    lists' cursors do; ``sizes`` overrides ``COLUMN_SIZES``. With ``milestone`` (its id) each column
    is that milestone's issues in the status instead: the sparse ``milestone_status`` index (PK
    ``xm``, by number, newest first), the same 4 Queries at the same cost.
    """
    starts = starts or {}
    sizes = {**COLUMN_SIZES, **(sizes or {})}
    columns: dict[str, IssuePage] = {}
    for status in STATUSES:
        start, backwards = starts.get(status) or (None, False)
        columns[status] = status_list(
            tenant=tenant,
            project_key=project_key,
            status=status,
            milestone=milestone,
            sort="updated",
            size=sizes[status],
            start=start,
            backwards=backwards,
        )
    return columns
