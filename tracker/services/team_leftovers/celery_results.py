"""What Celery's result backend keeps of a team: its tasks' arguments and results, shared jobs' results.

``CELERY_RESULT_EXTENDED`` keeps every task's arguments with its result (the admin's job pages show
them). A task whose arguments name the team was the team's (an import, a search update, a fan-out
of one of its changes): its record is deleted. A shared job's result that names the team (a
``distinct_keys`` run's sample of keys; a traceback quoting a key) keeps everything else: the
entries naming the team are taken out of it (``names.Team.redact``). The offboarding task's own
record (its argument is the slug, its result the offboarding report) stays.

The tasks that carry a team's words and whose result nobody reads (fan-out, digests, search
updates, count refreshes) store no result at all (``ignore_result``: ``tracker.tasks``).

    django-db   TaskResult rows: one SQL query of the rows holding the slug in their arguments, result,
                traceback or meta (LIKE: the table is read once; its rows expire with Celery's
                ``result_expires`` cleanup), each confirmed as a whole word, then deleted or rewritten
    redis://    ``celery-task-meta-*`` keys: SCAN MATCH, ``SCAN_COUNT`` a call, GET each (a key a task)
"""

from __future__ import annotations

import json
from typing import Any

import redis
from django.conf import settings
from django.db.models import Q
from django_celery_results.models import TaskResult

from tracker import optional_redis
from tracker.services.team_leftovers.names import Team

SCAN_COUNT = 500
META_PREFIX = "celery-task-meta-"
OFFBOARD_TASK = "offboard_tenant"


def _verdict(team: Team, *, name: Any, args: Any, kwargs: Any, rest: list[Any]) -> str | None:
    """ "delete" (the team's task), "redact" (a shared task's result names the team) or None."""
    if str(name or "").rpartition(".")[2] == OFFBOARD_TASK and team.names(args):
        return None  # the offboarding's own record: the slug and its report
    if team.names(args) or team.names(kwargs):
        return "delete"
    if any(team.names(value) for value in rest):
        return "redact"
    return None


def _redact_json(team: Team, text: str | None) -> str | None:
    if text is None or not team.names(text):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return json.dumps(None)
    return json.dumps(team.redact(value)[0])


def task_results(team: Team, *, apply: bool) -> dict[str, int]:
    """TaskResult rows of the team's tasks, and shared results naming it: counts (changed when ``apply``)."""
    slug = team.slug
    rows = TaskResult.objects.filter(
        Q(task_args__contains=slug)
        | Q(task_kwargs__contains=slug)
        | Q(result__contains=slug)
        | Q(traceback__contains=slug)
        | Q(meta__contains=slug)
    )
    counts = {"deleted": 0, "redacted": 0}
    for row in rows.iterator():
        verdict = _verdict(
            team,
            name=row.task_name,
            args=row.task_args,
            kwargs=row.task_kwargs,
            rest=[row.result, row.traceback, row.meta],
        )
        if verdict is None:
            continue
        counts["deleted" if verdict == "delete" else "redacted"] += 1
        if not apply:
            continue
        if verdict == "delete":
            row.delete()
            continue
        row.result = _redact_json(team, row.result)
        row.meta = _redact_json(team, row.meta)
        if team.names(row.traceback):
            row.traceback = ""
        row.save(update_fields=["result", "meta", "traceback"])
    return counts


def redis_results(team: Team, *, apply: bool) -> dict[str, int]:
    """The same in a Redis result backend (``CELERY_RESULT_BACKEND=redis://…``); zeros for any other."""
    counts = {"deleted": 0, "redacted": 0}
    url = str(settings.CELERY_RESULT_BACKEND or "")
    if not url.startswith(("redis://", "rediss://")):
        return counts
    client: redis.Redis = optional_redis.client(url)
    for raw_key in client.scan_iter(match=f"{META_PREFIX}*", count=SCAN_COUNT):
        raw = client.get(raw_key)
        if raw is None or not team.names(raw):
            continue
        try:
            meta = json.loads(raw)  # type: ignore[arg-type]
        except ValueError:
            continue
        if not isinstance(meta, dict):
            continue
        verdict = _verdict(
            team,
            name=meta.get("name"),
            args=json.dumps(meta.get("args")),
            kwargs=json.dumps(meta.get("kwargs")),
            rest=[json.dumps(meta.get("result")), meta.get("traceback")],
        )
        if verdict is None:
            continue
        counts["deleted" if verdict == "delete" else "redacted"] += 1
        if not apply:
            continue
        if verdict == "delete":
            client.delete(raw_key)
            continue
        meta["result"] = team.redact(meta.get("result"))[0]
        if team.names(meta.get("traceback")):
            meta["traceback"] = None
        client.set(raw_key, json.dumps(meta), keepttl=True)
    return counts
