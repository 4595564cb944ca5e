"""Every item of one tenant, table by table, read through keys that hold the tenant — never a Scan.

Pages come in DynamoDB's wire format (what the archive keeps, item for item) from the metered
low-level client. Where a table has a key or index keyed by the tenant, that is what is read;
where it has none (an issue's attachments, an issue's award), the keys are derived from the
tenant's issue numbers, which the issues part lists first. Base tables are read strongly
consistent (an export must not miss a write of a second ago): 1 RCU per 4 KB; indexes only offer
eventually consistent reads: 0.5 RCU per 4 KB. Every Query costs at least its minimum, empty or not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from ddbmodels.core import capacity, connection, retry
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.items import query_pages
from ddbmodels.core.tables import describe_table
from ddbmodels.events.model import BY_DAY_INDEX, EVENTS, day_key
from ddbmodels.idempotency.model import BY_TENANT_INDEX as IDEMPOTENCY_BY_TENANT
from ddbmodels.idempotency.model import shard_keys as idempotency_shards
from ddbmodels.inbox.model import BY_TENANT_INDEX as INBOX_BY_TENANT
from ddbmodels.inbox.model import HEAD_SK as INBOX_HEAD_SK
from ddbmodels.issues.model import PROJECT_SK, collection_key
from ddbmodels.jobs.model import BY_TENANT_INDEX as JOBS_BY_TENANT
from ddbmodels.labels.model import label_key
from ddbmodels.patterns.time_series import list_period_tables, period_shift
from ddbmodels.scores.model import TOP_INDEX, award_key

Page = list[dict[str, Any]]
IssueRef = tuple[str, int]  # (project key, issue number)
BATCH_GET = 100  # BatchGetItem's maximum keys per request
GET_BACKOFF = retry.Backoff(attempts=10, base_s=0.05, cap_s=5.0)


def key_equals(name: str, value: str, *, index: str | None = None, consistent: bool = False) -> dict[str, Any]:
    """A Query request for one partition, ``<name> = value``, of the table or of ``index``.

    ``consistent`` on base tables only (an index offers eventually consistent reads alone).
    """
    request: dict[str, Any] = {
        "KeyConditionExpression": "#k = :k",
        "ExpressionAttributeNames": {"#k": name},
        "ExpressionAttributeValues": {":k": {"S": value}},
    }
    if index is not None:
        request["IndexName"] = index
    if consistent:
        request["ConsistentRead"] = True
    return request


def _issue_collection_pages(base: str, key: str, tenant: str, issues: Iterable[IssueRef]) -> Iterator[Page]:
    """Query ``<key>`` = ``<tenant>#<PROJECT>#<n>`` of ``base`` per issue, consistent — 1 RCU per 4 KB (≥ 1 an issue).

    For the tables that hold an issue's items in a collection of their own and have no key or
    index by tenant (attachments, comments): the keys come from the issue numbers listed.
    """
    table = connection.table_name(base)
    for project, number in issues:
        yield from query_pages(table, **key_equals(key, f"{collection_key(tenant, project)}#{number}", consistent=True))


def batch_get_pages(table: str, keys: Iterable[dict[str, Any]], *, consistent: bool = True) -> Iterator[Page]:
    """BatchGetItem 100 keys a request; UnprocessedKeys again after the one full-jitter backoff.

    1 RCU per item read consistent (0.5 otherwise), and the same for a key that holds no item.
    """
    client = connection.client()
    keys = list(keys)
    for start in range(0, len(keys), BATCH_GET):
        pending: dict[str, Any] = {table: {"Keys": keys[start : start + BATCH_GET], "ConsistentRead": consistent}}
        for _ in retry.attempts(GET_BACKOFF):
            answer = client.batch_get_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL")
            yield answer.get("Responses", {}).get(table, [])
            pending = answer.get("UnprocessedKeys") or {}
            if not pending:
                break
        else:
            raise Unavailable(f"BatchGetItem left keys unprocessed after {GET_BACKOFF.attempts} attempts", table=table)


@capacity.access_pattern("tenants.projects")
def project_keys(tenant: str) -> list[str]:
    """Query ``projects`` (sparse, KEYS_ONLY) gt = tenant — 0.5 RCU per 4 KB of keys (a few bytes per project)."""
    table = connection.table_name("issues")
    found: list[str] = []
    for page in query_pages(table, **key_equals("gt", tenant, index="projects")):
        found.extend(item["gk"]["S"] for item in page)
    return found


@capacity.access_pattern("tenants.issues")
def issues_pages(tenant: str, projects: Iterable[str], issues_seen: list[IssueRef]) -> Iterator[Page]:
    """Query pk = ``<tenant>#<PROJECT>`` per project, consistent — 1 RCU per 4 KB (at least 1 per project).

    Every item of each collection (static item, issues, tombstones and whatever else the
    collection holds); the issue numbers seen are appended to ``issues_seen`` for the parts keyed by issue.
    """
    table = connection.table_name("issues")
    for project in projects:
        for page in query_pages(table, **key_equals("pk", collection_key(tenant, project), consistent=True)):
            issues_seen.extend((project, int(item["n"]["N"])) for item in page if int(item["n"]["N"]) != PROJECT_SK)
            yield page


# Tables whose partition key is the tenant itself: a registered table, or one of the layouts ``upgrade_search``
# replaces (``LEGACY_TENANT_KEYED``) while it still exists here; any other is skipped.
TENANT_KEYED = ("orders", "idempotency", "terms")
# Tables of an earlier layout, keyed by the team, and their partition key's name: an install that has not run
# ``manage.py upgrade_search`` yet still holds a team's items there (idempotency records, label and word entries).
LEGACY_TENANT_KEYED = {"idempotency": "t", "terms": "tn"}


def tenant_key_name(base: str) -> str | None:
    """The partition key's stored name of a tenant-keyed table, or None when this install has no such table.

    A registered table: its model's (no request). An old layout's (``LEGACY_TENANT_KEYED``): DescribeTable
    (free), and only when its key is still the team's.
    """
    model = connection.registered().get(base)
    if model is not None:
        return str(model._hash_key_attribute().attr_name)
    name = LEGACY_TENANT_KEYED.get(base)
    if name is None:
        return None
    description = describe_table(connection.table_name(base))
    if description is None:
        return None
    hash_key = [k["AttributeName"] for k in description["KeySchema"] if k["KeyType"] == "HASH"]
    return name if hash_key == [name] else None


@capacity.access_pattern("tenants.tenant_keyed")
def tenant_keyed_pages(tenant: str, base: str) -> Iterator[Page]:
    """Query PK = tenant (orders, idempotency records), consistent — 1 RCU per 4 KB of the tenant's items (≥ 1)."""
    name = tenant_key_name(base)
    if name is None:
        return
    yield from query_pages(connection.table_name(base), **key_equals(name, tenant, consistent=True))


@capacity.access_pattern("tenants.labels")
def labels_pages(tenant: str) -> Iterator[Page]:
    """Query labels lk = the team (its label registry, consistent: 1 RCU per 4 KB), then lk = ``<team>#<label>``
    per label, consistent — 1 RCU per 4 KB of each label's entries (at least 1 a label).

    Every entry of a label is written after its registry item (``labels.registry_ensure``), so the
    registry names every key that holds one. The registry items come last, so a run deleting in this
    order that stops half way still finds the labels it has not emptied yet.
    """
    table = connection.table_name("labels")
    registry = [item for page in query_pages(table, **key_equals("lk", tenant, consistent=True)) for item in page]
    for item in registry:
        yield from query_pages(table, **key_equals("lk", label_key(tenant, item["s"]["S"]), consistent=True))
    if registry:
        yield registry


@capacity.access_pattern("tenants.idempotency")
def idempotency_pages(tenant: str) -> Iterator[Page]:
    """Query idempotency_keys ``by_tenant`` ts = ``<team>#<n>`` per shard (KEYS_ONLY: 0.5 RCU per 4 KB of keys,
    at least 0.5 a shard), then BatchGetItem of those keys, consistent — 1 RCU per record.

    The index is eventually consistent; the consistent BatchGetItem returns only what exists.
    """
    table = connection.table_name("idempotency_keys")
    keys: list[dict[str, Any]] = []
    for shard in idempotency_shards(tenant):
        for page in query_pages(table, **key_equals("ts", shard, index=IDEMPOTENCY_BY_TENANT)):
            keys.extend({"k": item["k"]} for item in page)
    for page in batch_get_pages(table, keys):
        if page:
            yield page


@capacity.access_pattern("tenants.attachments")
def attachments_pages(tenant: str, issues: Iterable[IssueRef]) -> Iterator[Page]:
    """Query pk = ``<tenant>#<PROJECT>#<n>`` per issue, consistent — 1 RCU per issue with ≤ 4 KB of attachments.

    The table has no key or index by tenant, so the keys come from the issue numbers listed.
    """
    yield from _issue_collection_pages("attachments", "pk", tenant, issues)


@capacity.access_pattern("tenants.comments")
def comments_pages(tenant: str, issues: Iterable[IssueRef]) -> Iterator[Page]:
    """Query s = ``<tenant>#<PROJECT>#<n>`` per issue, consistent — 1 RCU per issue with ≤ 4 KB of comments.

    The table has no key or index by tenant (``ddbmodels.comments.model`` says why), so the
    keys come from the issue numbers listed.
    """
    yield from _issue_collection_pages("comments", "s", tenant, issues)


@capacity.access_pattern("tenants.scores")
def scores_pages(tenant: str, issues: Iterable[IssueRef], *, shards: int) -> Iterator[Page]:
    """Score items: Query ``top`` tp = ``<tenant>#<n>`` per shard (KEYS_ONLY, 0.5 RCU per 4 KB) + BatchGetItem;
    award items: BatchGetItem of ``<tenant>#issue#<PROJECT>#<n>`` per issue (not in the index) — 1 RCU a key.
    """
    table = connection.table_name("scores")
    score_keys: list[dict[str, Any]] = []
    for shard in range(1, shards + 1):
        for page in query_pages(table, **key_equals("tp", f"{tenant}#{shard}", index=TOP_INDEX)):
            score_keys.extend({"pk": item["pk"]} for item in page)
    yield from batch_get_pages(table, score_keys)
    yield from batch_get_pages(table, ({"pk": {"S": award_key(tenant, p, n)}} for p, n in issues))


@capacity.access_pattern("tenants.inbox")
def inbox_pages(tenant: str) -> Iterator[Page]:
    """Query inbox ``by_tenant`` tn = tenant (KEYS_ONLY, 0.5 RCU per 4 KB), then each person's inbox, consistent.

    The index holds the tenant's watchers — whole: a watcher item is nothing but its keys — and
    inbox heads; each head names a person whose collection pk = ``<tenant>#<user>`` (head and
    notifications) is then read: 1 RCU per 4 KB of each person's inbox (at least 1 a person).
    """
    table = connection.table_name("inbox")
    people: list[str] = []
    for page in query_pages(table, **key_equals("tn", tenant, index=INBOX_BY_TENANT)):
        people.extend(item["pk"]["S"] for item in page if item["sk"]["S"] == INBOX_HEAD_SK)
        watchers = [item for item in page if item["sk"]["S"] != INBOX_HEAD_SK]
        if watchers:
            yield watchers
    for person in people:
        yield from query_pages(table, **key_equals("pk", person, consistent=True))


@capacity.access_pattern("tenants.jobs")
def jobs_pages(tenant: str) -> Iterator[Page]:
    """Query jobs ``by_tenant`` tn = tenant (sparse, KEYS_ONLY: 0.5 RCU per 4 KB of keys), then BatchGetItem
    of those keys, consistent — 1 RCU per job item (≤ 4 KB; an import's record is < 1 KB).

    The team's own job items (web imports' records and claims, bulk loads' checkpoints: written
    with ``tenant=``). The index is eventually consistent; the consistent BatchGetItem returns
    only what exists, so a key the index still shows after a delete counts nothing. Job items
    that belong to nobody (``offboard_tenant:<slug>`` among them) are never in the index.
    """
    table = connection.table_name("jobs")
    keys: list[dict[str, Any]] = []
    for page in query_pages(table, **key_equals("tn", tenant, index=JOBS_BY_TENANT)):
        keys.extend({"j": item["j"]} for item in page)
    for page in batch_get_pages(table, keys):
        if page:
            yield page


def event_tables() -> list[str]:
    """ListTables (free): the events tables that exist now, oldest period first."""
    return [table.name for table in list_period_tables(EVENTS)]


@capacity.access_pattern("tenants.events")
def events_pages(tenant: str, table: str, *, shards: int) -> Iterator[Page]:
    """Query ``by_day`` d = ``<tenant>#<day>#<n>`` for every day of the table's period and every shard.

    0.5 RCU per 4 KB per Query (ALL projection: whole events), at least 0.5 per (day, shard): a
    month's table is 28–31 × N Queries, a day's N.
    """
    parsed = EVENTS.parse_table_name(table)
    if parsed is None:
        raise ValueError(f"{table} is not an events table")
    kind, _, start = parsed
    days = (period_shift(kind, start, 1) - start).days
    for offset in range(days):
        day = (start + timedelta(days=offset)).date()
        for shard in range(1, shards + 1):
            yield from query_pages(table, **key_equals("d", day_key(tenant, day, shard), index=BY_DAY_INDEX))


@capacity.access_pattern("tenants.has_data")
def tenant_has_data(tenant: str, *, score_shards: int) -> bool:
    """Query ``projects``, each tenant-keyed table, each ``top`` shard, inbox and jobs ``by_tenant``, the label
    registry and each idempotency ``by_tenant`` shard, Limit 1 — 0.5 RCU each.

    Every attachment, comment, award and event hangs off an issue, so a tenant without projects, orders
    idempotency records or scores has nothing those would find either (offboarding deletes the projects last).
    Job items do not hang off a project (an import that never created its project keeps its record), so
    they are probed too.
    """
    client = connection.client()
    probes: list[tuple[str, dict[str, Any]]] = [("issues", key_equals("gt", tenant, index="projects"))]
    probes += [(base, key_equals(name, tenant)) for base in TENANT_KEYED if (name := tenant_key_name(base)) is not None]
    probes.append(("inbox", key_equals("tn", tenant, index=INBOX_BY_TENANT)))
    probes.append(("jobs", key_equals("tn", tenant, index=JOBS_BY_TENANT)))
    probes.append(("labels", key_equals("lk", tenant)))  # the label registry: written before any entry
    probes += [
        ("idempotency_keys", key_equals("ts", shard, index=IDEMPOTENCY_BY_TENANT))
        for shard in idempotency_shards(tenant)
    ]
    probes += [
        ("scores", key_equals("tp", f"{tenant}#{shard}", index=TOP_INDEX)) for shard in range(1, score_shards + 1)
    ]
    for base, request in probes:
        page = client.query(
            TableName=connection.table_name(base), **request, Limit=1, Select="COUNT", ReturnConsumedCapacity="TOTAL"
        )
        if page.get("Count", 0):
            return True
    return False
