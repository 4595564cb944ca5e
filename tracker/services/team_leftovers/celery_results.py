"""What Celery's result backend keeps of a team: its tasks' arguments and results, shared jobs' results.

``CELERY_RESULT_EXTENDED`` keeps every task's arguments with its result (the admin's job pages show
them). A record is the team's when its task is about one team and the argument naming the team, parsed
(JSON, or Celery's repr of it), equals the slug (``names.task_team``: ``tenant=``, the event's stream of a
fan-out, …): it is deleted. A shared job's result (a ``distinct_keys`` run's sample of keys) keeps
everything else: only the entries that are the team's keys or job names, or ``tenant``/``slug`` fields
equal to the slug, are taken out (``names.Team.redact``), and the team's keys quoted in a traceback
(``<slug>#…``) replaced. Titles and other words in a record are never read. The offboarding task's own
record (its argument is the slug, its result the offboarding report) stays.

The tasks that carry a team's words and whose result nobody reads (fan-out, digests, search
updates, count refreshes) store no result at all (``ignore_result``: ``tracker.tasks``).

    django-db   TaskResult rows: one SQL query of the rows holding the slug in their arguments, result,
                traceback or meta (LIKE, a narrowing only: the table is read once; its rows expire with
                Celery's ``result_expires`` cleanup), each parsed, then deleted or rewritten
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
from tracker.services.team_leftovers.names import OFFBOARD_TASK, Team

SCAN_COUNT = 500
META_PREFIX = "celery-task-meta-"


def _json(text: Any) -> Any:
    if text is None or not isinstance(text, str | bytes):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _verdict(team: Team, *, name: Any, args: Any, kwargs: Any, result: Any, traceback: Any) -> str | None:
    """ "delete" (the team's task), "redact" (a shared task's result holds the team's entries) or None."""
    if str(name or "").rpartition(".")[2] == OFFBOARD_TASK:
        return None  # an offboarding's own record: its slug and its report
    if team.owns_task(name, args, kwargs):
        return "delete"
    if team.redact(result)[1] or team.quoted_keys(traceback):
        return "redact"
    return None


def _redact_json(team: Team, text: str | None) -> str | None:
    value = _json(text)
    new, removed = team.redact(value)
    return json.dumps(new) if removed else text


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
            result=[_json(row.result), _json(row.meta)],
            traceback=row.traceback,
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
        row.traceback = team.redact_text(row.traceback)[0]
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
        if raw is None or team.slug.encode() not in (raw if isinstance(raw, bytes) else str(raw).encode()):
            continue  # a narrowing only: the record is parsed below
        try:
            meta = json.loads(raw)  # type: ignore[arg-type]
        except ValueError:
            continue
        if not isinstance(meta, dict):
            continue
        verdict = _verdict(
            team,
            name=meta.get("name"),
            args=meta.get("args"),
            kwargs=meta.get("kwargs"),
            result=meta.get("result"),
            traceback=meta.get("traceback"),
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
        meta["traceback"] = team.redact_text(meta.get("traceback"))[0]
        client.set(raw_key, json.dumps(meta), keepttl=True)
    return counts
