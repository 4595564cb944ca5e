"""What the comments table stores for a team: each of its issues' comments."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.comments.model import issue_stream
from ddbmodels.core import capacity
from ddbmodels.core.team_data import Page, Team, TeamData, issue_partition_pages


@capacity.access_pattern("tenants.comments")
def comment_pages(team: Team, table: str) -> Iterator[Page]:
    """Query s = ``<tenant>#<PROJECT>#<n>`` per issue, consistent — 1 RCU per issue with ≤ 4 KB of comments.

    The table has no key or index by tenant (``ddbmodels.comments.model`` says why), so the
    keys come from the issue numbers listed.
    """
    yield from issue_partition_pages(team, table, "s", issue_stream)


TEAM_DATA = (
    TeamData(
        part="comments",
        find=comment_pages,
        found_through="issues: every comment is under one of the team's issues' keys, and a team's issues are "
        "deleted last (while any comment is left, its projects still show the team has data)",
        delete_order=20,
        index_entries="0 (no index)",
    ),
)
