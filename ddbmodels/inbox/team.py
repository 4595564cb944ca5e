"""What the inbox table stores for a team: watchers of its issues, and each member's inbox (head,
notifications, mail windows)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals
from ddbmodels.inbox.model import BY_TENANT_INDEX, HEAD_SK


@capacity.access_pattern("tenants.inbox")
def inbox_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query inbox ``by_tenant`` tn = tenant (KEYS_ONLY, 0.5 RCU per 4 KB), then each person's inbox, consistent.

    The index holds the tenant's watchers — whole: a watcher item is nothing but its keys — and
    inbox heads; each head names a person whose collection pk = ``<tenant>#<user>`` (head and
    notifications) is then read: 1 RCU per 4 KB of each person's inbox (at least 1 a person).
    """
    people: list[str] = []
    for page in query_pages(table, **key_equals("tn", tenant, index=BY_TENANT_INDEX)):
        people.extend(item["pk"]["S"] for item in page if item["sk"]["S"] == HEAD_SK)
        watchers = [item for item in page if item["sk"]["S"] != HEAD_SK]
        if watchers:
            yield watchers
    for person in people:
        yield from query_pages(table, **key_equals("pk", person, consistent=True))


def _find(team: Team, table: str) -> Iterator[Page]:
    return inbox_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("tn", tenant, index=BY_TENANT_INDEX)}]


TEAM_DATA = (
    TeamData(
        part="inbox",
        find=_find,
        probe=_probe,
        delete_order=50,
        index_entries="watchers and inbox heads 1 (by_tenant), notifications and mail windows 0",
    ),
)
