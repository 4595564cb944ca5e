"""The hot-keys page: the partition keys that took the most requests and capacity in the last minutes.

A small Contributor Insights over ``tracker.hot_key_stats`` (sampled counts, summed from Redis's
per-minute sets). A key that takes a big share of its table's traffic is flagged: one partition
serves at most 3,000 read units and 1,000 write units a second, whatever the table's total.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from tracker.selectors.admin.hot_keys import HOT_MIN_REQUESTS, HOT_SHARE, hot_keys_window
from tracker.views.admin.pages import admin_page

WINDOWS = (1, 5, 15)


def hot_keys_view(request: HttpRequest) -> HttpResponse:
    """Top partition keys per table by requests and by capacity, for the last 1, 5 or 15 minutes."""
    try:
        minutes = int(request.GET.get("minutes", "5"))
    except ValueError:
        minutes = 5
    if minutes not in WINDOWS:
        minutes = 5
    context = {
        "minutes": minutes,
        "windows": WINDOWS,
        "tables": hot_keys_window(minutes),
        "hot_share": round(HOT_SHARE * 100),
        "hot_min_requests": HOT_MIN_REQUESTS,
    }
    return admin_page(request, "admin/ddb/hot_keys.html", "Hot partition keys", context)
