"""Capacity by page (a rolling aggregate in Redis) and by job (TaskResult), drawn as SVG bars.

Per request, the middleware adds RCU, WCU, DynamoDB requests and one hit to a Redis hash of the
day (``tracker:ddbcap:<YYYY-MM-DD>``, kept ``KEEP_DAYS`` days); the page sums the last
``KEEP_DAYS`` days. A Redis outage loses figures, never a request.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django_celery_results.models import TaskResult

from ddbmodels.capacity import CapacityMeter
from tracker.jobs import redis_client

log = logging.getLogger(__name__)
KEEP_DAYS = 7
KEY_PREFIX = "tracker:ddbcap:"
JOB_ROWS = 500  # the newest finished runs the job chart adds up


def _day_key(day: datetime) -> str:
    return f"{KEY_PREFIX}{day:%Y-%m-%d}"


def page_capacity_record(*, url_name: str, meter: CapacityMeter) -> None:
    """HINCRBYFLOAT ×4 + EXPIRE in one pipeline; Redis errors are logged, not raised."""
    key = _day_key(datetime.now(UTC))
    try:
        pipe = redis_client().pipeline(transaction=False)
        pipe.hincrbyfloat(key, f"{url_name}:rcu", meter.rcu)
        pipe.hincrbyfloat(key, f"{url_name}:wcu", meter.wcu)
        pipe.hincrby(key, f"{url_name}:requests", meter.requests)
        pipe.hincrby(key, f"{url_name}:hits", 1)
        pipe.expire(key, KEEP_DAYS * 86400 + 86400)
        pipe.execute()
    except redis.exceptions.RedisError as error:
        log.warning("capacity of %s not recorded: %s", url_name, error)


@dataclass
class Row:
    """One bar: a label and its totals."""

    label: str
    rcu: float = 0.0
    wcu: float = 0.0
    requests: int = 0
    count: int = 0
    by_operation: dict[str, int] = field(default_factory=dict)

    @property
    def units(self) -> float:
        return round(self.rcu + self.wcu, 3)


def page_capacity_list() -> list[Row]:
    """Totals by URL name over the last KEEP_DAYS days, most capacity first."""
    now = datetime.now(UTC)
    rows: dict[str, Row] = {}
    try:
        client = redis_client()
        for days in range(KEEP_DAYS):
            day: dict[bytes, bytes] = client.hgetall(_day_key(now - timedelta(days=days)))  # type: ignore[assignment]
            for raw_field, raw_value in day.items():
                name, _, metric = raw_field.decode().rpartition(":")
                row = rows.setdefault(name, Row(label=name))
                value = float(raw_value)
                if metric == "rcu":
                    row.rcu += value
                elif metric == "wcu":
                    row.wcu += value
                elif metric == "requests":
                    row.requests += int(value)
                elif metric == "hits":
                    row.count += int(value)
    except redis.exceptions.RedisError as error:
        log.warning("page capacity unavailable: %s", error)
    return sorted(rows.values(), key=lambda r: (-r.units, r.label))


def result_payload(raw: str | None) -> dict[str, Any]:
    """A TaskResult's result JSON as a dict ({} when absent, not JSON, or not an object)."""
    try:
        value = json.loads(raw or "")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def job_capacity_list() -> list[Row]:
    """Capacity of finished maintenance runs (TaskResult), added up by job name."""
    rows: dict[str, Row] = {}
    finished = TaskResult.objects.filter(task_name__startswith="tracker.tasks.", status="SUCCESS")
    for task in finished.order_by("-date_done")[:JOB_ROWS]:
        payload = result_payload(task.result)
        used = payload.get("capacity")
        if not isinstance(used, dict):
            continue
        name = str(payload.get("job") or task.task_name)
        row = rows.setdefault(name, Row(label=name))
        row.rcu += float(used.get("rcu") or 0)
        row.wcu += float(used.get("wcu") or 0)
        row.requests += int(used.get("requests") or 0)
        row.count += 1
    return sorted(rows.values(), key=lambda r: (-r.units, r.label))


BAR_HEIGHT = 22
LABEL_WIDTH = 260
BAR_WIDTH = 420


def bars(rows: list[Row]) -> dict[str, Any]:
    """Geometry of a horizontal stacked bar chart (RCU then WCU), for the SVG in the template."""
    peak = max((r.units for r in rows), default=0.0) or 1.0
    drawn = []
    for n, row in enumerate(rows):
        row.rcu, row.wcu = round(row.rcu, 3), round(row.wcu, 3)  # shown as they are, without float noise
        rcu_w = BAR_WIDTH * row.rcu / peak
        wcu_w = BAR_WIDTH * row.wcu / peak
        drawn.append(
            {
                "row": row,
                "y": n * BAR_HEIGHT,
                "text_y": n * BAR_HEIGHT + BAR_HEIGHT * 0.7,
                "rcu_w": round(rcu_w, 2),
                "wcu_x": round(LABEL_WIDTH + rcu_w, 2),
                "wcu_w": round(wcu_w, 2),
                "value_x": round(LABEL_WIDTH + rcu_w + wcu_w + 6, 2),
            }
        )
    return {
        "bars": drawn,
        "height": max(len(rows), 1) * BAR_HEIGHT,
        "width": LABEL_WIDTH + BAR_WIDTH + 120,
        "label_width": LABEL_WIDTH,
        "label_x": LABEL_WIDTH - 6,
        "bar_height": BAR_HEIGHT - 6,
    }


def capacity_view(request: HttpRequest) -> HttpResponse:
    """The capacity page: by job and by page, each an inline SVG bar chart and a table."""
    context = {
        **admin.site.each_context(request),
        "title": "DynamoDB capacity",
        "sections": [
            {
                "id": "jobs",
                "heading": "By job",
                "help": "Finished maintenance runs recorded in the task results, added up by job.",
                "label": "Job",
                "count_label": "Runs",
                "empty": "No finished job with a capacity report yet.",
                "chart": bars(job_capacity_list()),
            },
            {
                "id": "pages",
                "heading": "By page",
                "help": f"Every request's DynamoDB capacity by URL name, over the last {KEEP_DAYS} days (Redis).",
                "label": "Page",
                "count_label": "Requests served",
                "empty": "No page recorded yet.",
                "chart": bars(page_capacity_list()),
            },
        ],
    }
    return TemplateResponse(request, "admin/ddb/capacity.html", context)
