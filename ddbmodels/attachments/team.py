"""What the attachments table stores for a team: each of its issues' attachments (and, through ``sn``, its files)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.attachments.model import issue_key
from ddbmodels.core import capacity
from ddbmodels.core.team_data import Page, Team, TeamData, issue_partition_pages


@capacity.access_pattern("tenants.attachments")
def attachment_pages(team: Team, table: str) -> Iterator[Page]:
    """Query pk = ``<tenant>#<PROJECT>#<n>`` per issue, consistent — 1 RCU per issue with ≤ 4 KB of attachments.

    The table has no key or index by tenant, so the keys come from the issue numbers listed.
    """
    yield from issue_partition_pages(team, table, "pk", issue_key)


TEAM_DATA = (
    TeamData(
        part="attachments",
        find=attachment_pages,
        found_through="issues: every attachment is under one of the team's issues' keys, and a team's issues are "
        "deleted last (while any attachment is left, its projects still show the team has data)",
        delete_order=10,
        index_entries="settled 0, in flight (Attaching, Detaching) 1 (in_flight)",
        file_attribute="sn",
    ),
)
