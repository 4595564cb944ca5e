"""After offboarding, nothing of the team exists anywhere the product keeps data (issue 20, finding 1).

One team (slug, usernames and titles of its own, found nowhere else) fills every table, an events
period that is archived and dropped, files (an orphan among them), shared jobs' checkpoints, Celery
task records (database and Redis), the admin log's copy of an edited item, cached pages, hot-key and
capacity statistics and job history in Redis, invitations of both kinds (what the owners typed: a
username, an address); a second team does the same. Before offboarding the scan finds each team in
every one of those places (``PLACES``). The first team is offboarded as staff do it from the admin
(``offboarding_queue``: audited, then the queued task run as a worker would), its export expires, and
an independent scan — not the offboarding code's own lists — reads every DynamoDB table the endpoint
lists (Scan), every file of archive storage (gzip opened), every file of the media storage, every
row of Django's database and every Redis key, looking for the team's slug, its usernames, its titles
and what its owners typed. That scan runs while the Tenant row still exists (its cascade must not be
what removes anything): nothing may be found but that row (slug, name), the records offboarding keeps
on purpose (tests/support/team_scan.py ``offboarding_records``: the ``RetiredSlug`` row, which keeps
the slug so it is never reused, the staff audit's "Offboarding started" entry and the offboarding
task's own record, naming the slug; the job's own name ``offboard_tenant:<slug>``) and the people's
own accounts (``auth_user``: a person outlives a team). Staff then delete the Tenant row, every
archive is restored (the admin's "Restore an events table") and the scan runs again. The other
team's data is all still there, its events in the archived period restore intact.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection as db
from django_celery_results.models import TaskResult
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import comments, events, issues, jobs
from ddbmodels.core import connection, tables
from ddbmodels.core.connection import table_name
from ddbmodels.core.keys import utcnow
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import rewriting
from devtools.services import Service
from tests.support import team_scan
from tests.tracker.conftest import World
from tests.tracker.test_offboarding import files_of, populate, stored
from tests.tracker.test_team_leftovers import redis_traces
from tracker.celery import app as celery_app
from tracker.models import Membership, PersonalInvitation, RetiredSlug, Tenant
from tracker.selectors.archives import archive_names
from tracker.services import offboarding_exports, team
from tracker.services.admin.jobs import offboarding_queue
from tracker.storage import DjangoArchiveStore

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
    typed = [f"guest-{name}-{tag}@example.org", f"guest-{name}-{tag}"]  # what owners type to invite someone
    needles = {
        "slug": [tenant.slug],
        "username": [u.username for u in people.values()],
        "title": titles,
        "typed": typed,
    }
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


def traces(world: World, needles: dict[str, list[str]]) -> None:
    """What the site leaves outside the team's items: cached pages, hot-key and capacity statistics, job history
    (test_team_leftovers' redis_traces), Celery task records in the database and in Redis, the admin log's
    copy of an edited item, shared jobs' checkpoints naming the team, an orphan file in its folder, and
    invitations (a link noted for an address, requests by name: what the owners typed)."""
    slug, title = world.slug, needles["title"][0]
    redis_traces(world)
    TaskResult.objects.create(
        task_id=f"search-{slug}",
        task_name="tracker.tasks.search_index_change",
        task_args=json.dumps(f"('{slug}', 'WEB', 1)"),
        task_kwargs=json.dumps("{}"),
        status="SUCCESS",
        result=json.dumps(f"indexed {slug}#WEB#1 {title!r}"),
    )
    celery_app.backend.client.set(
        f"celery-task-meta-fan-{slug}",
        json.dumps(
            {
                "status": "SUCCESS",
                "name": "tracker.tasks.fan_out_event",
                "args": [],
                "result": None,
                "kwargs": {"event": {"stream": f"{slug}#WEB#1", "title": title, "actor": world.member.username}},
            }
        ),
    )
    key = json.dumps({"pk": {"S": f"{slug}#WEB"}, "n": {"N": "1"}})
    admin = User.objects.filter(is_superuser=True).first() or User.objects.create_superuser("root-g1", "", "pw")
    LogEntry.objects.create(
        user_id=admin.pk,
        content_type=None,
        object_id=f"{table_name('issues')} {key}",
        object_repr=f"Changed {table_name('issues')} item {key}"[:200],
        action_flag=CHANGE,
        change_message=json.dumps({"before": {"title": title}, "after": {"title": "Public"}}),
    )
    orphan = Path(settings.STORAGES["default"]["OPTIONS"]["location"]) / "attachments" / slug / "WEB" / "9"
    orphan.mkdir(parents=True)
    (orphan / f"{title}.txt").write_text(f"{title} by {world.member.username}")
    # Invitations of both kinds: a link noted for an address, requests by name for what the owner typed.
    owner = Membership.objects.get(tenant=world.tenant, user=world.owner)
    team.invitation_create(membership=owner, role="member", email=needles["typed"][0])
    for typed in needles["typed"]:
        PersonalInvitation.objects.create(tenant=world.tenant, role="member", asked_for=typed, created_by=world.owner)


def shared_checkpoints(gone: World, stays: World) -> None:
    """Jobs every team shares, stopped half-way with a checkpoint naming the team."""
    token = jobs.fence_acquire("backfill_project_counts", "test")
    jobs.checkpoint_save("backfill_project_counts", token, f"{gone.slug}#WEB")
    token = jobs.fence_acquire("upgrade_search", "test")
    state = {"stage": "search", "tenants_done": [stays.slug, gone.slug], "tenant": gone.slug}
    jobs.checkpoint_save("upgrade_search", token, json.dumps(state))


def old_period_table(days_ago: int) -> str:
    """An events table of a period long past retention (created here, filled below, then archived); each test
    its own period (a table restored by one test stays in DynamoDB Local for the rest of the session)."""
    kind = settings.EVENTS_PERIOD
    name = events.events_table_name(kind, utcnow() - timedelta(days=days_ago))
    assert tables.describe_table(name) is None
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


def found_in(text: str, needles: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The needles in ``text``. The offboarding job's own records (its item, lock, run, capacity label) are
    named ``offboard_tenant:<slug>`` and stay: that name alone is not a trace (nothing else of the team may be)."""
    for slug in needles["slug"]:
        text = text.replace(f"offboard_tenant:{slug}", "offboard_tenant:…")
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


def every_django_table(needles: dict[str, list[str]], *, tenant_row: bool = False) -> list[str]:
    """Every row of every table, as ``column=value | ...``; what may stay: ``ALLOWED``, the records offboarding
    keeps on purpose (team_scan.offboarding_records: the retired slug, the staff audit's "Offboarding started"
    entry) and, with ``tenant_row``, the Tenant row (its slug and name) that staff delete afterwards."""
    kept = [team_scan.offboarding_records(slug) for slug in needles["slug"]]
    hits = []
    with db.cursor() as cursor:
        for table in db.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 (names from the database itself)
            columns = [c[0] for c in cursor.description]
            for row in cursor.fetchall():
                text = " | ".join(f"{c}={v}" for c, v in zip(columns, row, strict=True) if v is not None)
                hits += [
                    f"Django {table}: {kind} {needle!r}"
                    for kind, needle in found_in(text, needles)
                    if (table, kind) not in ALLOWED
                    and not (tenant_row and table == "tracker_tenant")
                    and not any(keep(team_scan.Hit("sql", table, needle, text)) for keep in kept)
                ]
    return sorted(set(hits))


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
    """Every key of every database, its name and value; what may stay: offboarding's own records
    (team_scan.offboarding_records: the offboarding task's own record, whose argument is the slug)."""
    kept = [team_scan.offboarding_records(slug) for slug in needles["slug"]]
    hits = []
    for number in range(16):
        client = redis.Redis.from_url(f"{server.url}/{number}")
        for key in client.scan_iter(count=1000):
            text = repr(key) + repr(_redis_value(client, key))
            hits += [
                f"Redis db {number} {key!r}: {what} {needle!r}"
                for what, needle in found_in(text, needles)
                if not any(keep(team_scan.Hit("redis", f"db {number} {key!r}", needle, text)) for keep in kept)
            ]
    return hits


# Where each team is found before offboarding (the scan can see every place it is asked about).
PLACES = {
    *(f"DynamoDB {t}" for t in ("issues", "attachments", "comments", "events", "idempotency_keys", "inbox")),
    *(f"DynamoDB {t}" for t in ("jobs", "labels", "orders", "scores")),
    "archive events",
    "media",
    *(f"Django {t}" for t in ("tracker_tenant", "django_admin_log", "django_celery_results_taskresult")),
    *(f"Django {t}" for t in ("tracker_invitation", "tracker_personalinvitation")),
    *(f"Redis {r}" for r in ("cache", "hot keys", "capacity", "job history", "task results")),
}
REDIS_FAMILIES = {
    "hotkeys": "hot keys",
    "ddbcap": "capacity",
    "jobs:runs": "job history",
    "celery-task-meta": "task results",
    "b'test:": "cache",
}


def place(hit: str) -> str:
    """The kind of place of a hit: the table without the run's prefix, the Redis key's family, the storage."""
    head = hit.split(": ", 1)[0]
    what, _, where = head.partition(" ")
    if what == "DynamoDB":
        base = where.removeprefix(connection.current().table_prefix)
        return f"DynamoDB {'events' if base.startswith('events-') else base}"
    if what == "Redis":
        return "Redis " + next((name for marker, name in REDIS_FAMILIES.items() if marker in where), where)
    if what == "archive":
        return "archive events" if where.startswith("events/") else head
    if what == "media":
        return "media"
    return head


def places(hits: list[str]) -> set[str]:
    return {place(hit) for hit in hits}


def everywhere(
    needles: dict[str, list[str]], media: Path, archive_dir: Path, server: Service, *, tenant_row: bool = False
) -> list[str]:
    return [
        *every_dynamodb_table(needles),
        *every_file(archive_dir, "archive", needles),
        *every_file(media, "media", needles),
        *every_django_table(needles, tenant_row=tenant_row),
        *every_redis_key(server, needles),
    ]


def test_after_offboarding_an_independent_scan_of_everything_finds_nothing_of_the_team(
    media: Path, archive_dir: Path, redis_server: Service, settings: SettingsWrapper
) -> None:
    gone, needles = make_team("quokka", "Zanzibar roadmap")
    stays, other_needles = make_team("wombat", "Kalahari budget")
    for world, words in ((gone, needles), (stays, other_needles)):
        fill(world, words)
        traces(world, words)
    shared_checkpoints(gone, stays)
    old = old_period_table(400)
    put_all(old, old_events(old, gone, needles) + old_events(old, stays, other_needles))
    others_old_events = lines_of(old, stays.slug)
    assert len(others_old_events) == 40
    assert run_queued_tasks(redis_server) == 6  # the attachments' fan-outs (their notifications are data too)
    call_command("archive_event_tables", stdout=io.StringIO())  # the daily job: exported, verified, dropped
    assert tables.describe_table(old) is None
    assert old in archive_names()
    # Before: the team is everywhere the scan looks (so the scan can find it).
    before = everywhere(needles, media, archive_dir, redis_server)
    assert places(before) >= PLACES, PLACES - places(before)
    others_before, others_files = stored(stays.slug), files_of(media, stays.slug)

    # Staff start it as the admin's "Offboard" action does (audited), and a worker runs the queued task.
    offboarding_queue(slug=gone.slug, by=User.objects.get(username="root-g1"))
    assert run_queued_tasks(redis_server) == 1
    result = RetiredSlug.objects.get(slug=gone.slug).report
    assert result["finished"], result["remaining"]
    assert (result["invitations_withdrawn"], result["requests_withdrawn"], result["invitations_deleted"]) == (1, 2, 3)
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
    with DjangoArchiveStore().open_read(rewritten["exported_to"]) as raw:  # the team's events go to its export
        handed = gzip.decompress(raw.read()).splitlines()
    assert len(handed) == 40
    assert all(f'"tenant":{{"S":"{gone.slug}"}}'.encode() in line for line in handed)
    assert rewritten["exported_to"].startswith(f"{result['archive']}/")
    settings.OFFBOARDING_EXPORT_DAYS = 0
    assert gone.slug in offboarding_exports.delete_expired_exports()["deleted"]  # the team's export expires
    # Offboarding itself removed everything (the invitations' typed names and addresses too): before staff
    # delete the Tenant row, only that row (slug, name) and offboarding's own records name the team.
    left = everywhere(needles, media, archive_dir, redis_server, tenant_row=True)
    assert left == [], "\n".join(left)
    Tenant.objects.get(slug=gone.slug).delete()  # staff delete the row once nothing is left (refused before)
    # Staff restore every archive afterwards (the admin's "Restore an events table").
    for name in archive_names():
        target = name if tables.describe_table(name) is None else f"{name}-restored"
        time_series.restore(DjangoArchiveStore(), name, table_name=target)

    left = everywhere(needles, media, archive_dir, redis_server)
    assert left == [], "\n".join(left)
    assert lines_of(old, stays.slug) == others_old_events  # the other team's archived events restore intact
    assert stored(stays.slug) == {**others_before, "events": others_before["events"] + 40}  # + the restored period
    assert files_of(media, stays.slug) == others_files
    others_after = everywhere(other_needles, media, archive_dir, redis_server)
    assert places(others_after) >= PLACES, PLACES - places(others_after)  # the other team's traces all stay


def test_offboarding_killed_inside_an_archive_swap_finishes_it_on_the_next_run(
    world: World, other_world: World, media: Path, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = old_period_table(480)
    words = {"title": ["Plan A", "Plan B"]}
    put_all(old, old_events(old, world, words) + old_events(old, other_world, words))
    others = lines_of(old, other_world.slug)
    call_command("archive_event_tables", stdout=io.StringIO())
    assert tables.describe_table(old) is None
    store = DjangoArchiveStore()

    def killed(*args: Any, **kwargs: Any) -> bool:
        raise RuntimeError("worker killed")  # after the checkpoint that holds the swap's plan, before the swap

    monkeypatch.setattr(rewriting, "finish_swap", killed)
    with pytest.raises(RuntimeError, match="worker killed"):
        call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=io.StringIO())
    halfway = time_series.verify_archive(store, old)
    assert halfway.ok  # the period keeps a valid archive: the old one
    assert halfway.items == 80
    monkeypatch.undo()

    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    result = json.loads(out.getvalue())["result"]

    assert result["resumed_from"]["stage"] == "archives"
    entry = result["archives_rewritten"][old]
    assert entry["finished_after_a_restart"]
    assert (entry["removed"], entry["kept"]) == (40, 40)
    assert result["finished"]
    after = time_series.verify_archive(store, old)
    assert after.ok
    assert after.items == 40
    assert [n for n in store.list(f"events/{old}/") if "/data" in n] == [after.manifest["data"]["name"]]  # type: ignore[index]
    time_series.restore(store, old)
    assert lines_of(old, world.slug) == set()
    assert lines_of(old, other_world.slug) == others
