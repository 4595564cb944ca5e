"""An independent scan for a team's traces: every Redis key, every text column of Django's database,
every stored file, every DynamoDB table — read whole, with nothing of the code under test.

Each function takes ``needles`` (plain substrings: ``"<slug>#"``, ``":<slug>:"``, ``"attachments/<slug>"``,
the team's titles, file names, comment words) and returns a ``Hit`` for every place one occurs.
The caller decides what may stay (``allowed``): the ``RetiredSlug`` row, the offboarding job's own
records, the export handed to the team.

    hits = team_scan.everything(needles, redis_urls=[...], storage_roots=[media, archive])
    assert team_scan.unexpected(hits, allowed=team_scan.offboarding_records(slug)) == []

Costs nothing to the code under test, and a lot to the test: whole Scans, every key, every row.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from django.db import connection

from ddbmodels.core import connection as ddb_connection


@dataclass(frozen=True)
class Hit:
    """Where a needle was found: the place (redis, sql, file, dynamodb), the address in it, the needle."""

    place: str
    where: str
    needle: str
    text: str = ""

    def __str__(self) -> str:
        return f"{self.place} {self.where}: {self.needle!r} in {self.text[:160]!r}"


def _find(place: str, where: str, text: str, needles: Sequence[str]) -> list[Hit]:
    return [Hit(place, where, needle, text) for needle in needles if needle in text]


def _s(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def redis_hits(url: str, needles: Sequence[str]) -> list[Hit]:
    """Every key of the Redis database at ``url``: its name and whole value, whatever its type."""
    client = redis.Redis.from_url(url)
    hits: list[Hit] = []
    for raw in client.scan_iter(count=1000):
        key = _s(raw)
        kind = _s(client.type(raw))
        if kind == "string":
            value: Any = client.get(raw)
        elif kind == "list":
            value = client.lrange(raw, 0, -1)
        elif kind == "hash":
            value = client.hgetall(raw)
        elif kind == "zset":
            value = client.zrange(raw, 0, -1, withscores=True)
        elif kind == "set":
            value = client.smembers(raw)
        else:
            value = ""
        hits += _find("redis", f"{url} {key}", key, needles)
        hits += _find("redis", f"{url} {key} (value)", _s(value), needles)
    return hits


def sql_hits(needles: Sequence[str]) -> list[Hit]:
    """Every row of every table of Django's default database: all its columns, as text."""
    hits: list[Hit] = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            quoted = connection.ops.quote_name(table)
            cursor.execute(f"SELECT * FROM {quoted}")  # noqa: S608 — the tables' own names
            columns = [c[0] for c in cursor.description]
            for row in cursor.fetchall():
                text = " | ".join(f"{c}={_s(v)}" for c, v in zip(columns, row, strict=True) if v is not None)
                hits += _find("sql", table, text, needles)
    return hits


def file_hits(root: Path, needles: Sequence[str]) -> list[Hit]:
    """Every file and folder under ``root``: its path, and its bytes for a file (a ``.gz`` file decompressed)."""
    hits: list[Hit] = []
    if not root.exists():
        return hits
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        hits += _find("file", f"{root} {relative}", relative, needles)
        if path.is_file():
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            hits += _find("file", f"{root} {relative} (content)", data.decode("utf-8", "replace"), needles)
    return hits


def list_tables(client: Any) -> list[str]:
    """Every table name on the endpoint: ListTables page after page (``LastEvaluatedTableName``)."""
    names: list[str] = []
    request: dict[str, Any] = {"Limit": 100}
    while True:
        page = client.list_tables(**request)
        names += page.get("TableNames", [])
        if "LastEvaluatedTableName" not in page:
            return names
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def dynamodb_hits(needles: Sequence[str], *, prefix: str | None = None) -> list[Hit]:
    """Every item of every table whose name starts with ``prefix`` (the test's tables): whole Scans."""
    client = ddb_connection.client()
    prefix = prefix if prefix is not None else ddb_connection.table_name("")
    hits: list[Hit] = []
    for table in list_tables(client):
        if not table.startswith(prefix):
            continue
        request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
        while True:
            page = client.scan(**request)
            for item in page.get("Items", []):
                hits += _find("dynamodb", table, json.dumps(item, ensure_ascii=False), needles)
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return hits


def everything(
    needles: Sequence[str],
    *,
    redis_urls: Iterable[str] = (),
    storage_roots: Iterable[Path] = (),
    dynamodb: bool = True,
) -> list[Hit]:
    """Every place at once: Redis databases, Django's database, storage folders, DynamoDB."""
    hits = sql_hits(needles)
    for url in redis_urls:
        hits += redis_hits(url, needles)
    for root in storage_roots:
        hits += file_hits(root, needles)
    if dynamodb:
        hits += dynamodb_hits(needles)
    return hits


Allowed = Callable[[Hit], bool]


def offboarding_records(slug: str) -> Allowed:
    """What offboarding keeps on purpose, naming the slug only: the ``RetiredSlug`` row, and records of the
    offboarding like it, naming the slug itself: the staff audit's "Offboarding started" entry (who started
    it, when, for which team; written when staff start it from the admin) and the offboarding task's own
    record (``tracker.tasks.offboard_tenant``: its argument is the slug, its result the report the retired
    slug keeps too; the admin's job page reads it); the offboarding job's own item, lock, run record and
    capacity label (``offboard_tenant:<slug>``)."""
    job = f"offboard_tenant:{slug}"

    def allowed(hit: Hit) -> bool:
        if hit.place == "sql" and hit.where == "tracker_retiredslug":
            return True
        started = hit.place == "sql" and hit.where == "audit_auditentry" and "action=offboard" in hit.text.split(" | ")
        if hit.needle == slug and (started or "tracker.tasks.offboard_tenant" in hit.text):
            return True
        return job in hit.text and hit.text.replace(job, "").count(slug) == 0

    return allowed


def unexpected(hits: Iterable[Hit], *, allowed: Allowed | None = None) -> list[str]:
    """The hits not allowed, as readable lines (an empty list: nothing of the team is left)."""
    return [str(hit) for hit in hits if allowed is None or not allowed(hit)]
