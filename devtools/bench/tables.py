"""What a run prints: aligned tables, column specs (``@floors``, ``@req``, …), its chart."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from devtools.bench.floors import FLOOR_COLUMNS, REQUEST_COLUMNS, Column


def align(header: Sequence[str], lines: Sequence[Sequence[str]], *, left: int = 0) -> str:
    """Columns two spaces apart, a rule of dashes under the header; the first ``left`` flush left, the rest right."""
    widths = [max([len(title), *(len(line[i]) for line in lines)]) for i, title in enumerate(header)]

    def row(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([row(header), "  ".join("-" * width for width in widths), *(row(line) for line in lines)])


def table(columns: Sequence[Column], rows: Sequence[Mapping[str, Any]], *, left: int = 1) -> str:
    """One line per row: each column's value formatted with its spec; the first ``left`` columns flush left."""
    cells = [[format(row[key], spec) for _, key, spec in columns] for row in rows]
    return align([title for title, _, _ in columns], cells, left=left)


def show_table(title: str | None, columns: Sequence[Column], rows: Sequence[Mapping[str, Any]] | None) -> None:
    """``title`` (a blank line before it) and the table, when there are rows."""
    if rows:
        if title is not None:
            print(f"\n{title}" if title else "")
        print(table(columns, rows))


COLUMN_GROUPS: dict[str, list[Column]] = {
    "@rcu": FLOOR_COLUMNS[:3],
    "@wcu": FLOOR_COLUMNS[3:6],
    "@verdict": FLOOR_COLUMNS[6:],
    "@floors": FLOOR_COLUMNS,
    "@req": REQUEST_COLUMNS,
}


def columns(spec: str) -> list[Column]:
    """Columns from ``"title=key:format | key:format | @floors | …"`` (``@rcu``, ``@wcu``, ``@req``, ``@verdict``)."""
    made: list[Column] = []
    for part in (p.strip() for p in spec.split("|")):
        if part in COLUMN_GROUPS:
            made += COLUMN_GROUPS[part]
            continue
        named, _, fmt = part.rpartition(":")
        title, _, key = named.partition("=")
        made.append((title, key or title, fmt))
    return made


def draw(chart: Callable[[Any, Any], None], data: Any, path: Any, figures: dict[str, Any], shown: str) -> None:
    """``chart(data, path)``, its path in ``figures["chart"]`` as ``shown``; a failure is a warning, not an error."""
    figures["chart"] = None
    try:
        chart(data, path)
    except Exception as failure:  # noqa: BLE001 (a missing chart must not hide the figures)
        print(f"warning: no chart: {failure}", file=sys.stderr)
        return
    figures["chart"] = shown
    print(f"chart: {shown}")
