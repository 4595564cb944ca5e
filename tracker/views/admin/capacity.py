"""The capacity page: DynamoDB capacity by access pattern, by job, by page and by API token, drawn as SVG bars.

The figures are the rolling Redis aggregates of ``tracker.capacity_stats`` (every request and
every job run adds its meter when it ends).
"""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from tracker.selectors.admin.capacity import KEEP_DAYS, Row, capacity_totals, stated_costs
from tracker.views.admin.pages import admin_page

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


CODE = re.compile(r"``(.+?)``|`([^`]+)`")


def code_html(text: str) -> SafeString:
    """A docstring's sentence for the page: escaped, its ``code`` spans (double or single backticks) as <code>."""
    escaped = str(escape(text))
    return mark_safe(CODE.sub(lambda m: f"<code>{m.group(1) or m.group(2)}</code>", escaped))  # noqa: S308 (escaped first)


def with_stated_costs(chart: dict[str, Any]) -> dict[str, Any]:
    """Each pattern's stated cost (its docstring's first paragraph) beside its bar; and the patterns not yet run."""
    stated = {name: [code_html(cost) for cost in costs] for name, costs in stated_costs().items()}
    for bar in chart["bars"]:
        bar["stated"] = stated.get(bar["row"].label, [])
    measured = {bar["row"].label for bar in chart["bars"]}
    chart["not_run"] = [(name, costs) for name, costs in stated.items() if name not in measured and costs]
    return chart


def capacity_view(request: HttpRequest) -> HttpResponse:
    """The capacity page: by access pattern, by job, by page and by API token, each an SVG bar chart and a table."""
    context = {
        "sections": [
            {
                "id": "patterns",
                "heading": "By access pattern",
                "help": (
                    f"Pages and jobs together, over the last {KEEP_DAYS} days, by the ddbmodels operation that made "
                    "each call (the outermost one). Calls: times the pattern ran; the last column is capacity units "
                    "per call, held against the cost each pattern states (under its name, from its code). A call "
                    "counts once it reaches DynamoDB. (no pattern) is everything else. A job's calls are split "
                    "here by pattern: an import's issues.import row is its load (issues, entries, comments) with "
                    "the load's own progress records, not the whole job (By job)."
                ),
                "label": "Access pattern",
                "count_label": "Calls",
                "per_label": "Units per call",
                "empty": "No DynamoDB call recorded yet.",
                "chart": with_stated_costs(bars(capacity_totals("pattern"))),
            },
            {
                "id": "jobs",
                "heading": "By job",
                "help": (
                    f"Maintenance runs (Celery or management command), over the last {KEEP_DAYS} days: each run's "
                    "whole capacity, every call it made (its records, checkpoints and fencing too), the figure of "
                    "the Jobs page's history. The page that queued a run counts under By page."
                ),
                "label": "Job",
                "count_label": "Runs",
                "per_label": "Units per run",
                "empty": "No job has run yet.",
                "chart": bars(capacity_totals("job")),
            },
            {
                "id": "pages",
                "heading": "By page",
                "help": f"Every request's DynamoDB capacity by URL name, over the last {KEEP_DAYS} days.",
                "label": "Page",
                "count_label": "Requests served",
                "per_label": "Units per request",
                "empty": "No page recorded yet.",
                "chart": bars(capacity_totals("page")),
            },
            {
                "id": "tokens",
                "heading": "API calls by token",
                "help": (
                    f"Every call to the API (/api/v1/) by the token that made it, over the last {KEEP_DAYS} days: "
                    "team # person # the token's last characters. The same calls are under By page as api:<name>."
                ),
                "label": "Token",
                "count_label": "Calls",
                "per_label": "Units per call",
                "empty": "No API call recorded yet.",
                "chart": bars(capacity_totals("token")),
            },
        ],
    }
    return admin_page(request, "admin/ddb/capacity.html", "DynamoDB capacity", context)
