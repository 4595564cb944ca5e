"""After offboarding, nothing of the team exists anywhere the product keeps data (issue 20, finding 1).

One team (slug, usernames and titles of its own, found nowhere else) fills every table, an events
period that is archived and dropped, files, job records and the admin's and Celery's traces; a second
team does the same. The first is offboarded, its export expires, every archive is restored (the
admin's "Restore an events table"), and then an independent scan — not the offboarding code's own
lists — reads every DynamoDB table the endpoint lists (Scan), every file of archive storage (gzip
opened), every file of the media storage, every table of Django's database and every Redis key,
looking for the team's slug, its usernames and its titles. Nothing may be found but the record that
retires the slug (``RetiredSlug``, which keeps the slug so it is never reused) and the people's own
accounts (``auth_user``: a person outlives a team). The other team's data is all still there, its
events in the archived period restore intact.
"""

from __future__ import annotations

import base64
import fnmatch
import gzip
import io
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection as db
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import comments, events, issues
from ddbmodels.core import connection, tables
from ddbmodels.core.keys import utcnow
from ddbmodels.patterns import time_series
from devtools.services import Service
from tests.tracker.conftest import World
from tests.tracker.test_offboarding import files_of, populate, stored
from tracker.celery import app as celery_app
from tracker.models import Membership, RetiredSlug, Tenant
from tracker.selectors.archives import archive_names
from tracker.services import offboarding_exports
from tracker.storage import DjangoArchiveStore

# Places another change of issue 20's finding 1 (helper G2: job records and results, Redis job history,
# capacity and hot-key statistics) clears; not yet in the tree when this test was written, so not yet
# asserted here. Remove an entry when its change lands.
NOT_YET = (
    "DynamoDB *-jobs",  # the offboarding job's own item names the team
    "Redis db 0 b'tracker:jobs:",  # job history
    "Redis db 0 b'tracker:ddbcap:",  # capacity figures per job name
    "Redis db 0 b'tracker:hotkeys:",  # hot keys (partition keys hold the team's slug)
)

ALLOWED = {
    # (Django table, needle kind): what stays by design
    ("tracker_retiredslug", "slug"),  # the slug is retired for good: that record must name it
    ("auth_user", "username"),  # people's accounts are not the team's data
}


def make_team(name: str, title: str) -> tuple[World, dict[str, list[str]]]:
    """A team whose slug, usernames and title appear nowhere else; its needles by kind."""
    tag = uuid.uuid4().hex[:8]
    tenant = Tenant.objects.create(slug=f"{name}-{tag}", name=f"{name.title()} {tag}")
    people = {}
    for role in ("owner", "member", "viewer"):
        user = User.objects.create_user(f"{role}{name}{tag}", password="pw-for-tests")
        Membership.objects.create(user=user, tenant=tenant, role=role)
        people[role] = user
    world = World(tenant=tenant, owner=people["owner"], member=people["member"], viewer=people["viewer"])
    issues.project_create(tenant=tenant.slug, key="WEB", name="Website", created_by=world.owner.username)
    titles = [f"{title} {tag}", f"{title} comment {tag}"]
    needles = {"slug": [tenant.slug], "username": [u.username for u in people.values()], "title": titles}
    return world, needles


def fill(world: World, needles: dict[str, list[str]]) -> None:
    """Every table (test_offboarding's populate), an issue titled with the team's words, a comment quoting
    them, and an event carrying them in the current period's table."""
    populate(world)
    slug, member = world.slug, world.member.username
    issue = issues.issue_create(tenant=slug, project_key="WEB", title=needles["title"][0], reporter=member).item
    comments.comment_add(
        tenant=slug, project_key="WEB", number=int(issue.number), author=member, body=needles["title"][1]
    )
    events.event_put(
        stream=f"{slug}#WEB#{issue.number}",
        kind="issue.edited",
        actor=member,
        tenant=slug,
        data={"title": needles["title"][0], "from": "Draft"},
    )


def old_period_table() -> str:
    """An events table of a period long past retention (created here, filled below, then archived)."""
    kind = settings.EVENTS_PERIOD
    name = events.events_table_name(kind, utcnow() - timedelta(days=400))
    events.create_events_table(name)
    return name


def old_events(table: str, world: World, needles: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Events of the team in the old period: titles, a title change, a file name, a comment excerpt."""
    parsed = events.parse_events_table_name(table)
    assert parsed is not None
    start = parsed[2]
    words = needles["title"]
    data = [
        ("issue.created", {"title": words[0]}),
        ("issue.edited", {"from": words[0], "to": f"{words[0]} v2"}),
        ("attachment.added", {"name": f"{words[0]}.pdf"}),
        ("comment.added", {"excerpt": words[1]}),
    ]
    return [
        events.event_item(
            stream=f"{world.slug}#WEB#{n + 1}",
            kind=kind,
            actor=world.member.username,
            tenant=world.slug,
            data=payload,
            when=start + timedelta(hours=n + 1),
            shards=settings.EVENTS_SHARDS,
        )
        for n, (kind, payload) in enumerate(data * 10)  # 40 events each
    ]


def put_all(table: str, items: list[dict[str, Any]]) -> None:
    client = connection.client()
    for start in range(0, len(items), 25):
        batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        assert not client.batch_write_item(RequestItems={table: batch}).get("UnprocessedItems")


def scan(table: str) -> Iterator[dict[str, Any]]:
    client = connection.client()
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**request)
        yield from page["Items"]
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def lines_of(table: str, tenant: str) -> set[bytes]:
    return {time_series.item_line(item) for item in scan(table) if item.get("tenant", {}).get("S") == tenant}


# ------------------------------------------------------------------------------------------------
# The independent scan: every place, read whole, searched as text
# ------------------------------------------------------------------------------------------------


def run_queued_tasks(server: Service) -> int:
    """What a worker does: take every task waiting in the broker's queue and run it (fan-outs of the changes)."""
    client: Any = redis.Redis.from_url(f"{server.url}/0")
    ran = 0
    while (raw := client.rpop("celery")) is not None:
        message = json.loads(raw)
        args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        celery_app.tasks[message["headers"]["task"]].apply(args=args, kwargs=kwargs).get()
        ran += 1
    return ran


def not_yet(hit: str) -> bool:
    return any(fnmatch.fnmatch(hit.split(":")[0], p) or hit.startswith(p) for p in NOT_YET)


def found_in(text: str, needles: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(kind, needle) for kind, words in needles.items() for needle in words if needle in text]


def every_dynamodb_table(needles: dict[str, list[str]]) -> list[str]:
    hits = []
    for table in tables.list_table_names():  # every table on the endpoint, not only ours
        for item in scan(table):
            text = time_series.item_line(item).decode()
            hits += [f"DynamoDB {table}: {kind} {needle!r}" for kind, needle in found_in(text, needles)]
    return hits


def every_file(root: Path, where: str, needles: dict[str, list[str]]) -> list[str]:
    hits = []
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        hits += [f"{where} name {relative}: {kind} {needle!r}" for kind, needle in found_in(relative, needles)]
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        text = data.decode("utf-8", errors="replace")
        hits += [f"{where} {relative}: {kind} {needle!r}" for kind, needle in found_in(text, needles)]
    return hits


def every_django_table(needles: dict[str, list[str]]) -> list[str]:
    hits = []
    with db.cursor() as cursor:
        for table in db.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 (names from the database itself)
            text = "\n".join(repr(row) for row in cursor.fetchall())
            hits += [
                f"Django {table}: {kind} {needle!r}"
                for kind, needle in found_in(text, needles)
                if (table, kind) not in ALLOWED
            ]
    return hits


def _redis_value(client: Any, key: bytes) -> Any:
    kind = client.type(key).decode()
    if kind == "string":
        return client.get(key)
    if kind == "hash":
        return client.hgetall(key)
    if kind == "list":
        return client.lrange(key, 0, -1)
    if kind == "set":
        return client.smembers(key)
    if kind == "zset":
        return client.zrange(key, 0, -1, withscores=True)
    if kind == "stream":
        return client.xrange(key)
    return b""


def every_redis_key(server: Service, needles: dict[str, list[str]]) -> list[str]:
    hits = []
    for number in range(16):
        client = redis.Redis.from_url(f"{server.url}/{number}")
        for key in client.scan_iter(count=1000):
            text = repr(key) + repr(_redis_value(client, key))
            hits += [f"Redis db {number} {key!r}: {what} {needle!r}" for what, needle in found_in(text, needles)]
    return hits


def everywhere(needles: dict[str, list[str]], media: Path, archive_dir: Path, server: Service) -> list[str]:
    return [
        *every_dynamodb_table(needles),
        *every_file(archive_dir, "archive", needles),
        *every_file(media, "media", needles),
        *every_django_table(needles),
        *every_redis_key(server, needles),
    ]


def test_after_offboarding_an_independent_scan_of_everything_finds_nothing_of_the_team(
    media: Path, archive_dir: Path, redis_server: Service, settings: SettingsWrapper
) -> None:
    gone, needles = make_team("quokka", "Zanzibar roadmap")
    stays, other_needles = make_team("wombat", "Kalahari budget")
    for world, words in ((gone, needles), (stays, other_needles)):
        fill(world, words)
    old = old_period_table()
    put_all(old, old_events(old, gone, needles) + old_events(old, stays, other_needles))
    others_old_events = lines_of(old, stays.slug)
    assert len(others_old_events) == 40
    assert run_queued_tasks(redis_server) == 6  # the attachments' fan-outs (their notifications are data too)
    call_command("archive_event_tables", stdout=io.StringIO())  # the daily job: exported, verified, dropped
    assert tables.describe_table(old) is None
    assert old in archive_names()
    # Before: the team is everywhere the scan looks (so the scan can find it).
    before = everywhere(needles, media, archive_dir, redis_server)
    assert any(hit.startswith(f"archive events/{old}") for hit in before)
    assert any(hit.startswith("DynamoDB") for hit in before)
    assert any(hit.startswith("media") for hit in before)
    others_before, others_files = stored(stays.slug), files_of(media, stays.slug)

    out = io.StringIO()
    call_command("offboard_tenant", gone.slug, "--yes", "--json", stdout=out)
    result = json.loads(out.getvalue())["result"]
    assert result["finished"], result["remaining"]
    rewritten = result["archives_rewritten"][old]
    assert rewritten["action"] == "rewritten"
    assert (rewritten["removed"], rewritten["kept"]) == (40, 40)
    assert rewritten["removed_by"] == {
        "issue.created": 10,
        "issue.edited": 10,
        "attachment.added": 10,
        "comment.added": 10,
    }
    assert RetiredSlug.objects.get(slug=gone.slug).report["archives_rewritten"][old]["removed"] == 40
    Tenant.objects.get(slug=gone.slug).delete()  # staff delete the row once nothing is left (refused before)
    settings.OFFBOARDING_EXPORT_DAYS = 0
    assert gone.slug in offboarding_exports.delete_expired_exports()["deleted"]  # the team's export expires
    # Staff restore every archive afterwards (the admin's "Restore an events table").
    for name in archive_names():
        target = name if tables.describe_table(name) is None else f"{name}-restored"
        time_series.restore(DjangoArchiveStore(), name, table_name=target)

    left = [hit for hit in everywhere(needles, media, archive_dir, redis_server) if not not_yet(hit)]
    assert left == [], "\n".join(left)
    assert lines_of(old, stays.slug) == others_old_events  # the other team's archived events restore intact
    assert stored(stays.slug) == {**others_before, "events": others_before["events"] + 40}  # + the restored period
    assert files_of(media, stays.slug) == others_files
    assert everywhere(other_needles, media, archive_dir, redis_server)  # and the scan still finds the other team
