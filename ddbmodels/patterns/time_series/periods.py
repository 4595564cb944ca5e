"""Periods of a time series: a day, an ISO week or a month, named and shifted in UTC.

A period id is what a per-period table is named after: ``2026-11-22`` (day), ``2026-W47`` (ISO
week: its year may differ from the date's), ``2026-11`` (month).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Literal, cast, get_args

from ddbmodels.core.keys import as_utc

PeriodKind = Literal["day", "week", "month"]
PERIOD_KINDS: tuple[PeriodKind, ...] = get_args(PeriodKind)

_PERIOD_ID_RE = re.compile(r"^(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2}))?|-W(?P<w>\d{2}))$")


def check_kind(kind: str) -> PeriodKind:
    """``kind`` when it is a period kind, else ValueError."""
    if kind not in PERIOD_KINDS:
        raise ValueError(f"period kind must be one of {', '.join(PERIOD_KINDS)}, got {kind!r}")
    return cast(PeriodKind, kind)


def period_start(kind: PeriodKind, when: datetime) -> datetime:
    """Midnight UTC of the first day of the period holding ``when`` (weeks start on Monday, ISO)."""
    kind, day = check_kind(kind), as_utc(when).date()
    if kind == "week":
        day -= timedelta(days=day.weekday())
    elif kind == "month":
        day = day.replace(day=1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def period_shift(kind: PeriodKind, when: datetime, periods: int) -> datetime:
    """Start of the period ``periods`` after (negative: before) the one holding ``when``."""
    start = period_start(kind, when)
    if kind == "day":
        return start + timedelta(days=periods)
    if kind == "week":
        return start + timedelta(weeks=periods)
    months = start.year * 12 + start.month - 1 + periods
    return start.replace(year=months // 12, month=months % 12 + 1)


def period_bounds(kind: PeriodKind, when: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the period holding ``when``, both aware UTC."""
    return period_start(kind, when), period_shift(kind, when, 1)


def period_id(kind: PeriodKind, when: datetime) -> str:
    """``2026-11-22`` (day), ``2026-W47`` (ISO week: its year may differ from the date's), ``2026-11`` (month)."""
    start = period_start(kind, when)
    if kind == "day":
        return f"{start:%Y-%m-%d}"
    if kind == "week":
        iso = start.isocalendar()
        return f"{iso.year:04d}-W{iso.week:02d}"
    return f"{start:%Y-%m}"


def parse_period_id(text: str) -> tuple[PeriodKind, datetime]:
    """The kind and start of a period id; ValueError for anything ``period_id`` would not produce."""
    match = _PERIOD_ID_RE.match(text)
    try:
        if not match:
            raise ValueError
        year = int(match["y"])
        kind: PeriodKind
        if match["w"]:
            kind, start = "week", datetime.fromisocalendar(year, int(match["w"]), 1).replace(tzinfo=UTC)
        elif match["d"]:
            kind, start = "day", datetime(year, int(match["m"]), int(match["d"]), tzinfo=UTC)
        elif match["m"]:
            kind, start = "month", datetime(year, int(match["m"]), 1, tzinfo=UTC)
        else:
            raise ValueError
    except ValueError:
        raise ValueError(f"not a period id: {text!r} (expected 2026-11, 2026-W47 or 2026-11-22)") from None
    return kind, start
