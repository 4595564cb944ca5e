"""What the run's tables and search index hold, read by the checker's own eyes: boto3 Scans and one SQL statement.

The checker must not trust the code it checks, so nothing here goes through ``ddbmodels`` or
PynamoDB: a plain boto3 client Scans every table under the run's fresh prefix (consistent reads,
every page) and the key formats and attribute names are written out below, as
``docs/architecture.md`` gives them. A Scan is right for a checker (every item of a table that
holds only this run's data, both ways: nothing left out, nothing extra); the application never
Scans. The search documents are read with one SQL statement from the run's own Django database.

``read`` returns a ``Stored``: plain Python values the ``invariants`` compare with what the users
were told, so the tests can build one by hand with one thing wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

Project = tuple[str, str]  # (team, project key)
Issue = tuple[str, str, int]  # (team, project key, number)

# Base table names (the physical name is the run's prefix + this); events are one table per period.
TABLES = ("issues", "labels", "orders", "counters", "attachments", "comments", "inbox", "idempotency_keys", "scores")
EVENTS_BASE = "events-"
ORDERS_COUNTER = "orders"  # the counters item that numbers every team's orders
PROJECT_SK = 0  # an issues collection's static item (the project); issues are 1, 2, 3 …
NOTE_MARK, WATCHER_MARK, HEAD_SK = "n#", "w#", "#"  # the inbox's sort keys


@dataclass(frozen=True)
class StoredIssue:
    title: str
    status: str
    priority: str
    assignee: str
    reporter: str
    labels: frozenset[str]
    version: int
    description: str = ""
    deleted: bool = False


@dataclass(frozen=True)
class LabelEntry:
    team: str
    label: str
    status: str
    project: str
    number: int
    version: int
    title: str = ""


@dataclass(frozen=True)
class Comment:
    issue: Issue
    key: str  # its sort key ``<time key>#<12 hex>``
    author: str
    body: str
    version: int


@dataclass(frozen=True)
class Attachment:
    issue: Issue
    id: str
    state: str
    size: int
    sha256: str
    in_flight: bool  # still carries the in-flight index key


@dataclass(frozen=True)
class Event:
    stream: str  # ``<team>#<PROJECT>#<number>``
    key: str  # its sort key ``<time key>#<8 hex>``
    kind: str
    actor: str
    # its ``data``: what the fan-out reads to know who starts watching (``mentions``; ``changed`` → ``assignee``)
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Notification:
    team: str
    user: str
    event_key: str
    project: str
    number: int
    actor: str
    kind: str
    read: bool


@dataclass(frozen=True)
class Head:
    unread: int
    read_through: str  # notifications with a key ≤ this were read by "mark all read" ("" never)


@dataclass(frozen=True)
class Document:
    """A search document (Django's ``search_document`` row)."""

    team: str
    project: str
    number: int
    comment_key: str  # "" for the issue's own document
    title: str
    body: str
    status: str
    labels: str  # " bug ui " (sorted, space around) or ""
    assignee: str
    version: int
    gone: bool


@dataclass
class Stored:
    """Everything the checks compare; each field is filled by ``read`` (the tests fill them by hand)."""

    issues: dict[Issue, StoredIssue] = field(default_factory=dict)
    projects: dict[Project, dict[str, int]] = field(default_factory=dict)  # the static item's counts by status
    labels: list[LabelEntry] = field(default_factory=list)
    registry: dict[str, set[str]] = field(default_factory=dict)  # team → labels it registered
    orders: list[tuple[str, int, str, int]] = field(default_factory=list)  # team, number, product, quantity
    counters: dict[str, int] = field(default_factory=dict)
    attachments: dict[str, Attachment] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    watchers: set[tuple[str, str]] = field(default_factory=set)  # (stream, username)
    heads: dict[tuple[str, str], Head] = field(default_factory=dict)  # (team, username) → inbox head
    notifications: list[Notification] = field(default_factory=list)
    idempotency_keys: set[str] = field(default_factory=set)  # ``<team>#<kind>#<key>``
    scores: dict[tuple[str, str], int] = field(default_factory=dict)  # (team, username) → points
    documents: list[Document] = field(default_factory=list)
    items: dict[str, int] = field(default_factory=dict)  # items read per table (the report's "checked")

    @property
    def numbers(self) -> dict[Project, list[int]]:
        numbers: dict[Project, list[int]] = {p: [] for p in self.projects}
        for team, key, number in self.issues:
            numbers.setdefault((team, key), []).append(number)
        return numbers


def client(endpoint: str) -> Any:
    """A boto3 DynamoDB client of the checker's own (DynamoDB Local takes any credentials)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 (a dummy, for DynamoDB Local only)
        config=Config(retries={"max_attempts": 5, "mode": "standard"}, read_timeout=30),
    )


def scan(ddb: Any, table: str) -> Iterator[dict[str, Any]]:
    """Every item of ``table`` (consistent, every page), as plain Python values."""
    from boto3.dynamodb.types import TypeDeserializer

    plain = TypeDeserializer()
    for page in ddb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        for item in page["Items"]:
            yield {name: _python(plain.deserialize(value)) for name, value in item.items()}


def _python(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, set):
        return {_python(v) for v in value}
    if isinstance(value, dict):
        return {k: _python(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_python(v) for v in value]
    return value


def split_stream(stream: str) -> Issue:
    """``<team>#<PROJECT>#<number>`` → (team, project, number)."""
    team, project, number = stream.split("#")
    return team, project, int(number)


def read(endpoint: str, prefix: str, *, database: str | None = "default") -> Stored:
    """Scan every table of the run (and its events tables), read the search documents (``database``; None:
    none): a ``Stored``."""
    ddb = client(endpoint)
    names = [n for page in ddb.get_paginator("list_tables").paginate() for n in page["TableNames"]]
    tables: dict[str, list[dict[str, Any]]] = {base: [] for base in TABLES}
    events: list[dict[str, Any]] = []
    for name in names:
        if not name.startswith(prefix):
            continue
        base = name.removeprefix(prefix)
        if base in tables:
            tables[base] = list(scan(ddb, name))
        elif base.startswith(EVENTS_BASE):
            events += scan(ddb, name)
    stored = parse(tables, events)
    if database is not None:
        stored.documents = documents(database)
        stored.items["search documents"] = len(stored.documents)
    return stored


def parse(tables: Mapping[str, list[dict[str, Any]]], events: list[dict[str, Any]]) -> Stored:
    """The raw items, by table, into a ``Stored`` (key formats and attribute names as the tables have them)."""
    stored = Stored(items={base: len(items) for base, items in tables.items()} | {"events": len(events)})
    for item in tables.get("issues", []):  # pk "<team>#<PROJECT>", n; the static item at n = 0
        team, project = item["pk"].split("#")
        if int(item["n"]) == PROJECT_SK:
            stored.projects[(team, project)] = {s: int(n) for s, n in (item.get("ic") or {}).items()}
            continue
        stored.issues[(team, project, int(item["n"]))] = StoredIssue(
            title=item.get("t", ""),
            status=item.get("st", ""),
            priority=item.get("pr", ""),
            assignee=item.get("as") or "",
            reporter=item.get("rp") or "",
            labels=frozenset(item.get("lb") or ()),
            version=int(item.get("v", 0)),
            description=item.get("ds") or "",
            deleted=item.get("da") is not None,
        )
    for item in tables.get("labels", []):  # entry: lk "<team>#<label>", s "<status>#<PROJECT>#<n:012>"
        if "#" not in item["lk"]:  # the registry: lk "<team>", s "<label>"
            stored.registry.setdefault(item["lk"], set()).add(item["s"])
            continue
        team, label = item["lk"].split("#", 1)
        status, project, number = item["s"].split("#")
        stored.labels.append(
            LabelEntry(team, label, status, project, int(number), int(item.get("v", -1)), item.get("t", ""))
        )
    for item in tables.get("orders", []):  # c team, t "<time key>#<number:015>", n, p product, q quantity
        stored.orders.append((item["c"], int(item["n"]), item.get("p", ""), int(item.get("q", 0))))
    stored.counters = {item["pk"]: int(item.get("v", 0)) for item in tables.get("counters", [])}
    for item in tables.get("attachments", []):  # pk "<team>#<PROJECT>#<n>", id; gp only while in flight
        stored.attachments[item["id"]] = Attachment(
            split_stream(item["pk"]),
            item["id"],
            item.get("st", ""),
            int(item.get("sz", -1)),
            item.get("sh", ""),
            "gp" in item,
        )
    for item in tables.get("comments", []):  # s "<team>#<PROJECT>#<n>", t key, a author, b body, v
        stored.comments.append(
            Comment(split_stream(item["s"]), item["t"], item.get("a", ""), item.get("b", ""), int(item.get("v", 0)))
        )
    for item in events:  # s stream, t key, kind, actor, data (a map)
        data = item.get("data")
        stored.events.append(
            Event(
                item["s"],
                item["t"],
                item.get("kind", ""),
                item.get("actor", ""),
                data if isinstance(data, dict) else {},
            )
        )
    for item in tables.get("inbox", []):
        pk, sk = item["pk"], item["sk"]
        if sk.startswith(WATCHER_MARK):  # pk the issue's stream
            stored.watchers.add((pk, sk.removeprefix(WATCHER_MARK)))
        elif sk == HEAD_SK:  # pk "<team>#<user>"
            team, user = pk.split("#", 1)
            stored.heads[(team, user)] = Head(int(item.get("c", 0)), item.get("rt") or "")
        elif sk.startswith(NOTE_MARK):
            team, user = pk.split("#", 1)
            stored.notifications.append(
                Notification(
                    team,
                    user,
                    sk.removeprefix(NOTE_MARK),
                    item.get("pj", ""),
                    int(item.get("n", 0)),
                    item.get("ac", ""),
                    item.get("k", ""),
                    bool(item.get("rd")),
                )
            )
        # m#… mail windows: not checked here
    stored.idempotency_keys = {item["k"] for item in tables.get("idempotency_keys", [])}
    for item in tables.get("scores", []):  # pk "<team>#user#<name>" carries sc; award proofs do not
        parts = item["pk"].split("#", 2)
        if len(parts) == 3 and parts[1] == "user" and "sc" in item:
            stored.scores[(parts[0], parts[2])] = int(item["sc"])
    return stored


def documents(database: str = "default") -> list[Document]:
    """Every row of the run's ``search_document`` table (the search engine's documents), by plain SQL."""
    from django.db import connections

    with connections[database].cursor() as cursor:
        cursor.execute(
            "SELECT tenant, project_key, number, comment_key, title, body, status, labels, assignee, version, gone "
            "FROM search_document"
        )
        rows = cursor.fetchall()
    return [Document(t, p, int(n), ck, ti, b, s, lb, a, int(v), bool(g)) for t, p, n, ck, ti, b, s, lb, a, v, g in rows]
