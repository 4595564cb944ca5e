"""The workload and rows of the preferences table (saved views, notification settings; ``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

from typing import Any

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core import capacity, connection
from ddbmodels.preferences.team import preference_pages
from devtools import bench
from devtools.bench import Cost, read_units
from pattern_rows.issue_writes import LOCAL_TRANSACTION
from pattern_rows.rows import ROWS, Row, counted, fixed
from pattern_rows.workload import SPLIT, TENANT, Workload

VIEWS = (("Open bugs", "is:open label:bug"), ("Mine", "assignee:@me sort:updated"), ("Stale", "is:open sort:stale"))


def partition_bytes(partition: str, sort_prefix: str = "v#") -> int:
    """The stored size of a partition's items whose sort key starts so (read unmetered): by default its views,
    what the menu's Query reads; with ``sort_prefix=""`` all of them, what an offboarding Query reads."""
    client, table = connection.client(), connection.table_name("preferences")
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": partition}},
    }
    items = bench.unmetered(lambda: client.query(**request))["Items"]
    return sum(bench.item_size(item) for item in items if item["s"]["S"].startswith(sort_prefix))


def one_query(_found: Any, size: int) -> Cost:
    return Cost(read_units(size), 0, 1)


def offboarding_read() -> list[Any]:
    """Every page offboarding reads of the team (``preference_pages`` is a generator: its pattern is set here,
    as ``tenants.export`` and ``tenants.delete`` set theirs around it)."""
    with capacity.access_pattern("tenants.preferences"):
        return list(preference_pages(TENANT, connection.table_name("preferences")))


def partitions_read(_found: Any, sizes: list[int]) -> Cost:
    """One consistent Query a partition (the team's, then each registered person's): 1 RCU per started 4 KB."""
    return Cost(sum(read_units(size, consistent=True) for size in sizes), 0, len(sizes))


def empty_partitions(_found: Any, sizes: list[int]) -> Cost:
    return Cost(-sum(1 for size in sizes if size == 0))


PREFERENCE_ROWS: dict[str, Row] = {
    "preferences.views_mine (the header menu, 1 of 2)": Row(
        "Query of the person's partition, s BETWEEN v# AND v#~: 0.5 RCU per started 4 KB of their views (≈ 150 B each)",
        one_query,
    ),
    "preferences.views_shared (the header menu, 2 of 2)": Row(
        "Query of the team's partition, s BETWEEN v# AND v#~: 0.5 RCU per started 4 KB of the shared views",
        one_query,
    ),
    "preferences.view_save (a person's first)": Row(
        "the person's registry item: GetItem (0.5 RCU) + PutItem attribute_not_exists (1 WCU); the view: PutItem "
        "attribute_not_exists ≤ 1 KB (1 WCU)",
        fixed(0.5, 2, 3),
    ),
    "preferences.view_save (later)": Row(
        "PutItem attribute_not_exists ≤ 1 KB (1 WCU): the registry is remembered by the process", fixed(0, 1, 1)
    ),
    "preferences.view_change (share)": Row(
        "consistent GetItem of the view (1 RCU) + TransactWriteItems: the view on its version and the team's copy, "
        "2 WCU each ≤ 1 KB",
        fixed(1, 4, 2),
        (LOCAL_TRANSACTION, lambda _found, _basis: Cost(0, -2)),
    ),
    "preferences.view_unshare_team": Row(
        "an owner takes a teammate's view out of the menu: consistent GetItem of the team's copy and of the author's "
        "view (1 RCU each) + TransactWriteItems: the copy deleted and the view unshared on its version, 2 WCU each",
        fixed(2, 4, 3),
        (LOCAL_TRANSACTION, lambda _found, _basis: Cost(0, -2)),
    ),
    "preferences.notify_get": Row(
        "GetItem of the team's settings item, eventually consistent: 0.5 RCU per started 4 KB", fixed(0.5, 0, 1)
    ),
    "preferences.notify_get (the fan-out's refill, consistent)": Row(
        "GetItem of the team's settings item, consistent (a saved setting holds at once): 1 RCU per started 4 KB",
        fixed(1, 0, 1),
    ),
    "preferences.notify_get (a digest about to be sent, consistent)": Row(
        "GetItem of the team's settings item, consistent, never the cache (e-mail off holds at once, whatever Redis "
        "does): 1 RCU per started 4 KB (≈ 40 B a person: one RCU per e-mail up to ≈ 100 people)",
        fixed(1, 0, 1),
    ),
    "preferences.person_register (a person's first)": Row(
        "GetItem of the person's registry item (0.5 RCU, found none) + PutItem attribute_not_exists ≤ 1 KB (1 WCU)",
        fixed(0.5, 1, 2),
    ),
    "preferences.person_register (registered, new process)": Row(
        "GetItem of the person's registry item ≤ 4 KB: 0.5 RCU, nothing written", fixed(0.5, 0, 1)
    ),
    "preferences.view_get (one's own)": Row("consistent GetItem of the person's view ≤ 4 KB: 1 RCU", fixed(1, 0, 1)),
    "preferences.view_get (a teammate's shared)": Row(
        "consistent GetItem of the person's partition (none: 1 RCU all the same) + of the team's copy ≤ 4 KB (1 RCU)",
        fixed(2, 0, 2),
    ),
    "tenants.preferences (offboarding read)": Row(
        "consistent Query of the team's partition + one of each registered person's: 1 RCU per started 4 KB each "
        "(at least 1 a partition, an empty one too)",
        partitions_read,
        (bench.LOCAL_EMPTY_QUERY, empty_partitions),
    ),
    "preferences.notify_set (a team's first)": Row(
        "PutItem attribute_not_exists of the settings item (1 WCU) + UpdateItem SET m.#u on the person's version "
        "(1 WCU ≤ 1 KB)",
        fixed(0, 2, 2),
    ),
    "preferences.notify_set (later)": Row(
        "UpdateItem SET m.#u on the person's version: 1 WCU ≤ 1 KB of the whole item", fixed(0, 1, 1)
    ),
}
ROWS.update(PREFERENCE_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)  # the variants, each metered


def run_preferences(run: Workload) -> None:
    """A person saves three views and shares one; the header menu's two Queries; an owner takes the shared one
    out of the menu; two people's settings."""
    preferences.registry_forget()  # the first save of the run writes the registry item
    saved = [
        run(
            "preferences.view_save (a person's first)" if n == 0 else "preferences.view_save (later)",
            preferences.view_save,
            TENANT,
            "alice",
            view_id=new_attachment_id(),
            name=name,
            query=query,
        )[0]
        for n, (name, query) in enumerate(VIEWS)
    ]
    shared = run(
        "preferences.view_change (share)",
        preferences.view_change,
        TENANT,
        "alice",
        saved[0].id,
        preferences.ViewEdit(1, shared=True),
    )
    bench.check(shared is not None and shared.shared, "the view was not shared")
    own = run("preferences.view_get (one's own)", preferences.view_get, TENANT, "alice", saved[1].id)
    bench.check(own is not None and own.name == VIEWS[1][0], f"alice's view is {own}")
    theirs = run("preferences.view_get (a teammate's shared)", preferences.view_get, TENANT, "bob", saved[0].id)
    bench.check(theirs is not None and theirs.author == "alice", f"the shared view bob opens is {theirs}")
    mine = run(
        "preferences.views_mine (the header menu, 1 of 2)",
        preferences.views_mine,
        TENANT,
        "alice",
        basis=partition_bytes(preferences.person_key(TENANT, "alice")),
    )
    bench.check(sorted(v.name for v in mine) == sorted(name for name, _ in VIEWS), f"alice's views are {mine}")
    team = run(
        "preferences.views_shared (the header menu, 2 of 2)",
        preferences.views_shared,
        TENANT,
        basis=partition_bytes(preferences.team_key(TENANT)),
    )
    bench.check([v.name for v in team] == ["Open bugs"], f"the shared views are {team}")
    taken = run("preferences.view_unshare_team", preferences.view_unshare_team, TENANT, saved[0].id, expected_version=2)
    left = bench.unmetered(lambda: preferences.views_shared(TENANT, consistent=True))
    bench.check(taken.name == "Open bugs" and left == [], f"the shared views are still {left}")
    run(
        "preferences.notify_set (a team's first)",
        preferences.notify_set,
        TENANT,
        "carol",
        level="off",
        email=True,
        expected_version=0,
    )
    run(
        "preferences.notify_set (later)",
        preferences.notify_set,
        TENANT,
        "carol",
        level="watching",
        email=False,
        expected_version=1,
    )
    people = run("preferences.notify_get", preferences.notify_settings, TENANT)
    bench.check(people["carol"] == preferences.NotifySetting("watching", False, 2), f"the settings are {people}")
    team = run(
        "preferences.notify_get (the fan-out's refill, consistent)", preferences.notify_team, TENANT, consistent=True
    )
    bench.check(team.people == people and team.generation > 0, f"the fan-out reads {team}")
    digest = run(
        "preferences.notify_get (a digest about to be sent, consistent)",
        preferences.notify_settings,
        TENANT,
        consistent=True,
    )
    bench.check(digest == people, f"the digest reads {digest}")
    run_registry_and_offboarding(run)


def run_registry_and_offboarding(run: Workload) -> None:
    """bob registered before his first view (new, then again in a process that forgot him); the team's data
    read as offboarding reads it: the team partition and alice's and bob's (his empty)."""
    preferences.registry_forget()
    written = run("preferences.person_register (a person's first)", preferences.person_ensure, TENANT, "bob")
    preferences.registry_forget()
    again = run("preferences.person_register (registered, new process)", preferences.person_ensure, TENANT, "bob")
    bench.check(written and not again, f"bob's registry item written {written}, then {again}")
    sizes = [
        partition_bytes(partition, sort_prefix="")
        for partition in (
            preferences.team_key(TENANT),
            preferences.person_key(TENANT, "alice"),
            preferences.person_key(TENANT, "bob"),
        )
    ]
    pages = run("tenants.preferences (offboarding read)", offboarding_read, basis=sizes)
    found = sum(len(page) for page in pages)
    bench.check(found == 6, f"offboarding found {found} items: 3 of alice's views, 2 registry items, the settings")
