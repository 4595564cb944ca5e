"""Telling a team's traces from everyone else's by structure, never by words.

A trace is the team's only where a field that names a team holds exactly its slug:

    keys         a DynamoDB key, a key in a sample or a checkpoint, a stream: the slug itself or ``<slug>#…``
    job names    ``<kind>:<slug>[:…]`` for the kinds of job that belong to one team (``TEAM_JOBS``);
                 ``distinct_keys:<table>`` or ``restore_event_table:<archive>`` name no team
    cache keys   ``<namespace>:<slug>`` followed by nothing, ``:`` or ``#``, for the cache's namespaces
                 of a team's values (``CACHE_NAMESPACES``)
    tasks        the argument the task's signature names as the team (``TASK_TEAM``: ``tenant=``, ``slug=``,
                 by keyword or at its position), or for ``fan_out_event`` its event's ``tenant`` or the
                 team part of its ``stream`` — from the parsed arguments
    fields       in a shared record (a job's result, a checkpoint), an entry ``tenant``/``slug`` equal to the
                 slug, or a string that is one of the team's keys or job names

Titles, schedule names, descriptions and other free text are never read: a team called ``design`` or
``attachments`` reaches nothing of another team's or of everyone's. The one exception is an error
message or traceback of a shared job, where only the team's keys quoted in it (a ``<slug>#…`` token)
are replaced; the record stays.

The offboarding job's own records (its job item, run record, capacity label, lock and Celery result)
name the slug and nothing else, like the ``RetiredSlug`` row that keeps the slug from being reused: they
stay (``Team.is_offboarding_job``).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

KEY_SEP = "#"
JOB_SEP = ":"
REMOVED = "(removed: an offboarded team's)"
# ``<kind>:<team>[:…]``: the jobs that belong to one team (their item, lock, run record and capacity label).
# ``tests/tracker/test_team_leftovers_registries.py`` reads the code: every key built ``f"<name>:{…}"`` is in
# ``TEAM_JOBS`` or ``CACHE_NAMESPACES`` or said there to be no team's, and every name here is still built.
TEAM_JOBS = frozenset(
    {"import_upload", "import_claim", "import_issues", "leaderboard_repair", "offboard_tenant", "label_change"}
    | {"milestone_close"}
)
# The cache's namespaces of a team's values: ``<namespace>:<team>``, then ``:…`` or ``#…`` or nothing.
CACHE_NAMESPACES = frozenset(
    {"ddb:projects", "ddb:project", "ddb:leaderboard", "ddb:order-key", "inbox-unread", "counts-pending", "ddb:labels"}
    | {"ddb:milestones"}
    | {"ddb:views", "notify-settings"}  # saved views (per team, per person), notification settings (per team)
    | {"ddb:webhooks"}  # the team's webhook endpoints (selectors.webhooks.team_endpoints)
)
# The tasks of ``tracker.tasks`` that are about one team: the parameter naming it, and its position.
# ``tests/tracker/test_team_leftovers.py`` checks these against the tasks' signatures, and that every
# other task is in ``TASKS_OF_NO_TEAM``.
TASK_TEAM: dict[str, tuple[str, int]] = {
    "refresh_project_counts": ("tenant", 0),
    "search_index_change": ("tenant", 0),
    "import_github_export": ("tenant", 0),
    "send_notification_digest": ("tenant", -1),  # keywords only (``**window``)
    "fan_out_event": ("event", 0),  # the event's ``tenant``, or its ``stream`` ``<team>#<PROJECT>#<n>``
    "offboard_tenant": ("slug", 0),
    "close_milestone": ("tenant", 0),
    "change_label": ("tenant", 0),
    "history_unquote": ("tenant", 0),  # a removed change's notifications rewritten (a large team's)
    "deliver_webhook": ("tenant", 0),  # one webhook delivery's next attempt
    "emit_webhooks": ("tenant", 0),  # one change's webhook deliveries DynamoDB refused in the request
}
TASKS_OF_NO_TEAM = frozenset(
    {
        "distinct_keys",  # a table's keys: its result's sample is redacted, never deleted
        "enumerate_projects",
        "backfill_project_counts",
        "rotate_event_tables",
        "archive_event_tables",
        "restore_event_table",
        "reconcile_attachments",
        "expire_offboarding_exports",
        "send_invitation_email",  # an invitation's id: offboarding withdraws the invitation itself
        "webhook_due",  # every team's due webhook deliveries: it queues deliver_webhook per delivery
    }
)
TEAM_FIELDS = ("tenant", "slug")
OFFBOARD_TASK = "offboard_tenant"
_REPR_FIELD = re.compile(r"""['"](tenant|slug|stream)['"]\s*:\s*['"]([^'"]*)['"]""")
_REPR_FIRST = re.compile(r"""^[(\[]\s*['"]([^'"]*)['"]""")


def parse_arguments(value: Any) -> Any:
    """Arguments as stored: JSON, or a Python repr (Celery's ``argsrepr``), or already parsed; None if not."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        text = value
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        if isinstance(value, str):
            try:
                value = ast.literal_eval(value)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return value  # a truncated repr: read by ``task_team``'s fallback
    return value


def _key_team(key: Any) -> str | None:
    return key.split(KEY_SEP, 1)[0] if isinstance(key, str) and key else None


def _event_team(event: Any) -> str | None:
    if not isinstance(event, dict):
        return None
    if isinstance(event.get("tenant"), str):
        return str(event["tenant"])
    return _key_team(event.get("stream"))


def _team_in_repr(param: str, position: int, args: Any, kwargs: Any) -> str | None:
    """A repr Celery cut short (``argsrepr``/``kwargsrepr``): its first argument, or its named field."""
    if isinstance(args, str) and position == 0 and param != "event" and (first := _REPR_FIRST.match(args)):
        return first.group(1)
    for text in (kwargs, args):
        for match in _REPR_FIELD.finditer(text if isinstance(text, str) else ""):
            field_name, found = match.groups()
            if field_name == param or (param == "event" and field_name == "tenant"):
                return found
            if field_name == "stream" and param == "event":
                return _key_team(found)
    return None


def task_team(task: object, args: Any, kwargs: Any) -> str | None:
    """The team a task is about, from its parsed arguments (``TASK_TEAM``); None for a task of no team."""
    name = str(task or "").rpartition(".")[2]
    if name not in TASK_TEAM:
        return None
    param, position = TASK_TEAM[name]
    args, kwargs = parse_arguments(args), parse_arguments(kwargs)
    value: Any = None
    if isinstance(kwargs, dict) and param in kwargs:
        value = kwargs[param]
    elif isinstance(args, list | tuple) and 0 <= position < len(args):
        value = args[position]
    else:
        return _team_in_repr(param, position, args, kwargs)
    if param == "event":
        return _event_team(value)
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Team:
    """A team being offboarded: its slug, and the name of its own offboarding job (which stays)."""

    slug: str
    offboarding_job: str = ""

    def owns_key(self, key: object) -> bool:
        """``key`` is the team's slug or one of its keys (``<slug>#…``): a DynamoDB key, a stream, a sample entry."""
        if isinstance(key, bytes):
            key = key.decode("utf-8", "replace")
        return isinstance(key, str) and (key == self.slug or key.startswith(self.slug + KEY_SEP))

    def owns_job(self, job: object) -> bool:
        """``job`` is a job of the team (``<kind>:<slug>[:…]``, ``kind`` in ``TEAM_JOBS``), not its offboarding."""
        if not isinstance(job, str) or self.is_offboarding_job(job):
            return False
        kind, _, rest = job.partition(JOB_SEP)
        return kind in TEAM_JOBS and rest.split(JOB_SEP, 1)[0] == self.slug

    def owns_cache_key(self, key: str) -> bool:
        """``key`` (without the cache's prefix) is ``<namespace>:<slug>`` then nothing, ``:…`` or ``#…``."""
        for namespace in CACHE_NAMESPACES:
            head = f"{namespace}:{self.slug}"
            if key == head or key.startswith((head + JOB_SEP, head + KEY_SEP)):
                return True
        return False

    def owns_task(self, task: object, args: Any, kwargs: Any) -> bool:
        """The task (by its name and parsed arguments) is about this team (``task_team``). Its offboarding
        (``offboard_tenant``, whose argument is the slug and nothing else) is its own record and stays."""
        if str(task or "").rpartition(".")[2] == OFFBOARD_TASK:
            return False
        return task_team(task, args, kwargs) == self.slug

    def owns(self, value: object) -> bool:
        """A string that is one of the team's keys or job names (an entry of a shared sample or checkpoint)."""
        return self.owns_key(value) or self.owns_job(value)

    def is_offboarding_job(self, job: object) -> bool:
        return bool(self.offboarding_job) and job == self.offboarding_job

    def quoted_keys(self, text: object) -> re.Pattern[str] | None:
        """The pattern of the team's keys quoted in a shared job's error or traceback, if ``text`` holds one."""
        if not isinstance(text, str) or not text:
            return None
        pattern = re.compile(rf"(?<![A-Za-z0-9_#:/.-]){re.escape(self.slug + KEY_SEP)}[^\s'\",)\]}}]*")
        return pattern if pattern.search(text) else None

    def redact_text(self, text: str | None) -> tuple[str | None, int]:
        """A shared job's error or traceback with the team's quoted keys (``<slug>#…``) replaced; how many."""
        pattern = self.quoted_keys(text)
        if pattern is None or text is None:
            return text, 0
        return pattern.subn(REMOVED, text)

    def redact(self, value: Any) -> tuple[Any, int]:
        """``value`` (JSON) without the team's entries: list entries that are its keys or job names dropped,
        dict entries keyed by one dropped, ``tenant``/``slug`` entries equal to the slug dropped, other
        strings that are its keys replaced, and its keys quoted in a message (``<slug>#…``) replaced;
        (the new value, how many were taken out)."""
        if isinstance(value, str):
            return (REMOVED, 1) if self.owns(value) else self.redact_text(value)  # type: ignore[return-value]
        if isinstance(value, list):
            kept, removed = [], 0
            for entry in value:
                if isinstance(entry, str) and self.owns(entry):
                    removed += 1
                    continue
                new, n = self.redact(entry)
                kept.append(new)
                removed += n
            return kept, removed
        if isinstance(value, dict):
            out, removed = {}, 0
            for key, entry in value.items():
                if self.owns(key) or (key in TEAM_FIELDS and entry == self.slug):
                    removed += 1
                    continue
                new, n = self.redact(entry)
                out[key] = new
                removed += n
            return out, removed
        return value, 0
