"""What Redis holds of a team: cached pages and counts, hot-key and capacity statistics, job history, locks.

Every read is SCAN with a MATCH (never KEYS), ``SCAN_COUNT`` keys a call, so Redis answers others
between calls; what a pass costs is one visit of every key of the database (Redis filters server side).

    keys         SCAN MATCH ``<cache prefix>*:<slug>*`` and ``tracker:job-lock:*:<slug>*``, each key parsed: the
                 cache's namespaces of a team's values (``names.CACHE_NAMESPACES``: ``ddb:projects:<team>``,
                 ``inbox-unread:<team>#<name>``, ``counts-pending:<team>#<P>``, …) and the locks of the team's
                 jobs (``names.TEAM_JOBS``: ``tracker:job-lock:import_upload:<team>:…``) — DEL
    hot keys     SCAN MATCH ``tracker:hotkeys:*`` (≤ 4 keys a minute of the window): each sorted set's
                 members ``<table>\\t<index>\\t<key>`` whose key is the team's (the slug, ``<team>#…``, or a
                 job of the team) — ZREM (≤ ``KEEP_PER_MINUTE`` members read a set)
    capacity     SCAN MATCH ``tracker:ddbcap:*`` (4 hashes a day, ``KEEP_DAYS``): fields whose label is a
                 job of the team (``import_issues:<team>:…``, ``leaderboard_repair:<team>``) or, in the
                 ``token`` hashes, one of its API tokens (``<team>#<user>#<hint>``) — HDEL
    job history  LRANGE of the ``RUNS_KEPT`` newest runs: a run whose ``job`` is a job of the team — LREM;
                 a shared job's run whose ``error`` quotes the team's keys (``<slug>#…``) keeps everything
                 else, those keys replaced (LSET)
    queued tasks the broker's queues (``CELERY_BROKER_URL`` on Redis: SCAN MATCH ``<default queue>*``, its
                 priority lists too): each waiting message whose task is about this team, from its decoded
                 arguments (``names.task_team``: ``tenant=``, the fan-out's event stream ``<team>#…``) — LREM.
                 Left there, a fan-out queued before offboarding would write the team's notifications
                 again after it. A message a worker already took (Redis' ``unacked``) is not reached.

Titles, names and other words are never read: a team called ``design`` leaves another team's fan-out of
"New design" in the queue.

The offboarding job's own lock, run record and capacity label name the slug only and stay
(``names.Team.is_offboarding_job``). Before the hot keys are read, this process's counted keys are
shipped (``hot_keys.flush``), so the team keys its own offboarding touched are among those removed.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import Any

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


def _client() -> redis.Redis:
    return optional_redis.client(settings.REDIS_URL)


def _scan(client: redis.Redis, match: str) -> Iterator[str]:
    for raw in client.scan_iter(match=match, count=SCAN_COUNT):
        yield raw.decode() if isinstance(raw, bytes) else str(raw)


def keys(team: Team, *, apply: bool) -> int:
    """The team's keys in Django's cache and its jobs' locks: how many (deleted when ``apply``).

    Only those two namespaces, each key parsed (``Team.owns_cache_key``, ``Team.owns_job``), so a slug
    that is also a word of another key's name (``celery``, ``tracker``, ``projects``) never reaches it.
    """
    client = _client()
    prefix = cache.make_key("")
    team_keys = {key for key in _scan(client, f"{prefix}*:{team.slug}*") if team.owns_cache_key(key[len(prefix) :])}
    team_keys |= {
        key for key in _scan(client, f"{LOCK_PREFIX}*:{team.slug}*") if team.owns_job(key[len(LOCK_PREFIX) :])
    }
    if apply:
        for key in team_keys:
            client.delete(key)
    return len(team_keys)


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
        team_members = [m for m in members if team.owns(_member_key(m))]
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
        tokens = key.startswith(f"{capacity_stats.KEY_PREFIX}token:")
        for name in fields:
            label = name.rpartition(":")[0]
            if team.owns_job(label) or (tokens and team.owns_key(label)):  # an API token's row: <team>#<user>#<hint>
                team_fields.append(name)
        found += len(team_fields)
        if apply and team_fields:
            client.hdel(key, *team_fields)
    return found


def job_history(team: Team, *, apply: bool) -> int:
    """Runs in the job history that were the team's, or quote its keys in their error: how many (removed, or
    the error rewritten without the keys, when ``apply``)."""
    client = _client()
    found = 0
    for raw in client.lrange(RUNS_KEY, 0, -1):  # type: ignore[union-attr]
        try:
            run = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(run, dict):
            continue
        if team.owns_job(run.get("job")):
            found += 1
            if apply:
                client.lrem(RUNS_KEY, 1, raw)
            continue
        error, quoted = team.redact_text(run.get("error"))
        if not quoted:
            continue
        found += 1
        if apply:
            _replace_run(client, raw, json.dumps({**run, "error": error}, default=str))
    return found


def _replace_run(client: redis.Redis, raw: bytes, new: str) -> None:
    """``raw`` replaced by ``new`` where it is now in the history (WATCH: a run pushed meanwhile moves it)."""
    with client.pipeline() as pipe:
        try:
            pipe.watch(RUNS_KEY)
            runs = pipe.lrange(RUNS_KEY, 0, -1)
            if raw not in runs:  # type: ignore[operator]
                return
            pipe.multi()
            pipe.lset(RUNS_KEY, runs.index(raw), new)  # type: ignore[union-attr]
            pipe.execute()
        except redis.WatchError:  # changed under us: left for the next pass (the check counts it)
            return


def _message_arguments(raw: bytes) -> tuple[str, Any, Any]:
    """(task name, args, kwargs) of a queued message (Celery's message protocol 2): the body's JSON
    ``[args, kwargs, embed]``, or the ``argsrepr``/``kwargsrepr`` headers when the body is not JSON."""
    try:
        message = json.loads(raw)
        headers = message.get("headers") or {}
        body = message.get("body") or ""
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body).decode("utf-8", "replace")
    except (ValueError, AttributeError, binascii.Error):
        return "", None, None
    task = str(headers.get("task") or "")
    try:
        args, kwargs = json.loads(body)[:2]
    except (ValueError, TypeError, KeyError):
        args, kwargs = headers.get("argsrepr"), headers.get("kwargsrepr")
    return task, args, kwargs


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
            if not team.owns_task(*_message_arguments(raw)):
                continue  # another team's task, or a task of no team, is never taken out
            found += 1
            if apply:
                client.lrem(queue, 1, raw)
    return found
