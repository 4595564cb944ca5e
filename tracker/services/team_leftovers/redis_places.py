"""What Redis holds of a team: cached pages and counts, hot-key and capacity statistics, job history, locks.

Every read is SCAN with a MATCH (never KEYS), ``SCAN_COUNT`` keys a call, so Redis answers others
between calls; what a pass costs is one visit of every key of the database (Redis filters server side).

    keys         SCAN MATCH ``<cache prefix>*<slug>*`` and ``tracker:job-lock:*<slug>*``: the cache's keys
                 (``ddb:projects:<team>``, ``inbox-unread:<team>#<name>``, ``counts-pending:<team>#<P>``, …)
                 and the team's jobs' locks (``tracker:job-lock:import_issues:<team>:…``) — DEL
    hot keys     SCAN MATCH ``tracker:hotkeys:*`` (≤ 4 keys a minute of the window): each sorted set's
                 members ``<table>\\t<index>\\t<key>`` whose key is the team's (``<team>#…``, the team, a
                 job of the team) — ZREM (≤ ``KEEP_PER_MINUTE`` members read a set)
    capacity     SCAN MATCH ``tracker:ddbcap:*`` (3 hashes a day, ``KEEP_DAYS``): fields whose label is a
                 job of the team (``import_issues:<team>:…``, ``leaderboard_repair:<team>``) — HDEL
    job history  LRANGE of the ``RUNS_KEPT`` newest runs: a run of the team's job, or whose error names the
                 team — LREM
    queued tasks the broker's queues (``CELERY_BROKER_URL`` on Redis: SCAN MATCH ``<default queue>*``, its
                 priority lists too): each waiting message of a task about one team (``TEAM_TASKS``) whose
                 arguments name this one — LREM.
                 Left there, a fan-out queued before offboarding would write the team's notifications
                 again after it. A message a worker already took (Redis' ``unacked``) is not reached.

The offboarding job's own lock, run record and capacity label name the slug only and stay
(``names.Team.is_offboarding_job``). Before the hot keys are read, this process's counted keys are
shipped (``hot_keys.flush``), so the team keys its own offboarding touched are among those removed.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator

import redis
from django.conf import settings
from django.core.cache import cache

from ddbmodels.core import hot_keys
from tracker import capacity_stats, hot_key_stats, optional_redis
from tracker.celery import app
from tracker.jobs import RUNS_KEY
from tracker.services.team_leftovers.names import Team

SCAN_COUNT = 500
LOCK_PREFIX = "tracker:job-lock:"
# The tasks whose arguments are one team's (``tracker.tasks``): only their queued messages are taken out.
TEAM_TASKS = frozenset(
    {
        "fan_out_event",
        "send_notification_digest",
        "search_index_change",
        "refresh_project_counts",
        "import_github_export",
    }
)


def _client() -> redis.Redis:
    return optional_redis.client(settings.REDIS_URL)


def _scan(client: redis.Redis, match: str) -> Iterator[str]:
    for raw in client.scan_iter(match=match, count=SCAN_COUNT):
        yield raw.decode() if isinstance(raw, bytes) else str(raw)


def _team_keys(client: redis.Redis, team: Team, prefix: str) -> Iterator[str]:
    """Keys under ``prefix`` whose rest (never the prefix: a slug may be ``tracker``) holds the slug."""
    for key in _scan(client, f"{prefix}*{team.slug}*"):
        if team.names(key[len(prefix) :]):
            yield key


def keys(team: Team, *, apply: bool) -> int:
    """The team's keys in Django's cache and its jobs' locks: how many (deleted when ``apply``).

    Only those two namespaces: the cache's (``cache.make_key``) and ``tracker:job-lock:<job>``, so a
    slug that is also a word of another key's name (``celery``, ``tracker``) never reaches it.
    """
    client = _client()
    found = 0
    team_keys = [*_team_keys(client, team, cache.make_key(""))]
    team_keys += [k for k in _team_keys(client, team, LOCK_PREFIX) if k[len(LOCK_PREFIX) :] != team.offboarding_job]
    for key in team_keys:
        found += 1
        if apply:
            client.delete(key)
    return found


def _member_key(member: str) -> str:
    return member.split(hot_key_stats.SEP, 2)[-1]


def hot_keys_entries(team: Team, *, apply: bool) -> int:
    """Hot-key statistics of the team's partition keys: how many entries (removed when ``apply``)."""
    if apply:
        hot_keys.flush(force=True)  # this process's counted keys first (its own offboarding's reads among them)
    client = _client()
    found = 0
    for key in _scan(client, f"{hot_key_stats.KEY_PREFIX}*"):
        if not key.endswith(tuple(f":{metric}" for metric in hot_key_stats.METRICS)):
            continue  # the ``tables`` hash: whole tables' totals, no key
        members = [
            member.decode() if isinstance(member, bytes) else str(member)
            for member in client.zrange(key, 0, -1)  # type: ignore[union-attr]
        ]
        team_members = [
            m for m in members if team.names(_member_key(m)) and not team.is_offboarding_job(_member_key(m))
        ]
        found += len(team_members)
        if apply and team_members:
            client.zrem(key, *team_members)
    return found


def capacity_entries(team: Team, *, apply: bool) -> int:
    """Capacity figures of the team's jobs (``<label>:<metric>`` fields): how many (removed when ``apply``)."""
    client = _client()
    found = 0
    for key in _scan(client, f"{capacity_stats.KEY_PREFIX}*"):
        fields = [f.decode() if isinstance(f, bytes) else str(f) for f in client.hkeys(key)]  # type: ignore[union-attr]
        team_fields = []
        for name in fields:
            label = name.rpartition(":")[0]
            if team.names(label) and not team.is_offboarding_job(label):
                team_fields.append(name)
        found += len(team_fields)
        if apply and team_fields:
            client.hdel(key, *team_fields)
    return found


def job_history(team: Team, *, apply: bool) -> int:
    """Runs in the job history that were the team's or name it: how many (removed when ``apply``)."""
    client = _client()
    found = 0
    for raw in client.lrange(RUNS_KEY, 0, -1):  # type: ignore[union-attr]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        if not team.names(text):
            continue
        try:
            job = json.loads(text).get("job")
        except (ValueError, AttributeError):
            job = None
        if team.is_offboarding_job(job):
            continue
        found += 1
        if apply:
            client.lrem(RUNS_KEY, 1, raw)
    return found


def _message_text(raw: bytes) -> tuple[str, str]:
    """(task name, what names its work: argsrepr, kwargsrepr and the decoded body) of a queued message."""
    try:
        message = json.loads(raw)
        headers = message.get("headers") or {}
        body = message.get("body") or ""
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body).decode("utf-8", "replace")
    except (ValueError, AttributeError, binascii.Error):
        return "", raw.decode("utf-8", "replace")
    words = f"{headers.get('argsrepr', '')} {headers.get('kwargsrepr', '')} {body}"
    return str(headers.get("task") or ""), words


def queued_tasks(team: Team, *, apply: bool) -> int:
    """Messages waiting in the broker's queues whose task is about the team: how many (removed when ``apply``)."""
    url = str(settings.CELERY_BROKER_URL or "")
    if not url.startswith(("redis://", "rediss://")):
        return 0
    client = optional_redis.client(url)
    found = 0
    for queue in _scan(client, f"{app.conf.task_default_queue}*"):
        if client.type(queue) not in (b"list", "list"):
            continue
        for raw in client.lrange(queue, 0, -1):  # type: ignore[union-attr]
            task, words = _message_text(raw)
            if task.rpartition(".")[2] not in TEAM_TASKS or not team.names(words):
                continue  # another task's message is never taken out, whatever word it holds
            found += 1
            if apply:
                client.lrem(queue, 1, raw)
    return found
