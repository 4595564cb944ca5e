"""What the issues table stores for a team: its projects' item collections (static items, issues, tombstones)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals
from ddbmodels.issues.model import PROJECT_SK, collection_key


@capacity.access_pattern("tenants.projects")
def team_project_keys(tenant: str) -> list[str]:
    """Query ``projects`` (sparse, KEYS_ONLY) gt = tenant — 0.5 RCU per 4 KB of keys (a few bytes per project)."""
    found: list[str] = []
    for page in query_pages(connection.table_name("issues"), **key_equals("gt", tenant, index="projects")):
        found.extend(item["gk"]["S"] for item in page)
    return found


@capacity.access_pattern("tenants.issues")
def collection_pages(team: Team, table: str, projects: list[str]) -> Iterator[Page]:
    """Query pk = ``<tenant>#<PROJECT>`` per project, consistent — 1 RCU per 4 KB (at least 1 per project).

    Every item of each collection (static item, issues, tombstones and whatever else the
    collection holds); the issue numbers seen are appended to ``team.issues`` for the parts keyed by issue.
    """
    for project in projects:
        for page in query_pages(table, **key_equals("pk", collection_key(team.tenant, project), consistent=True)):
            team.issues.extend((project, int(item["n"]["N"])) for item in page if int(item["n"]["N"]) != PROJECT_SK)
            yield page


def _find(team: Team, table: str) -> Iterator[Page]:
    team.projects[:] = team_project_keys(team.tenant)
    return collection_pages(team, table, team.projects)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("gt", tenant, index="projects")}]


TEAM_DATA = (
    TeamData(
        part="issues",
        find=_find,
        probe=_probe,
        lists_issues=True,
        delete_order=1000,  # last: while anything else is left, the team's projects still show it has data
        index_entries="a project's static item 1 (projects); a live issue 3, 4 when assigned (the list indexes); "
        "a tombstone 0",
    ),
)
