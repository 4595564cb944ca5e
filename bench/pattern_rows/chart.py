"""The bar chart of ``bench/patterns.py --plot``: measured and floor units per call, per pattern."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

CHART_CLIP = 24.0  # units per call: longer bars (the repair job's batch) are cut, their figure written beside


def num(value: float) -> str:
    """A figure per call, at most two decimals (15.357… → 15.36, 12.0 → 12)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def local_total(row: dict[str, Any]) -> float:
    """DynamoDB Local's floor per call, RCU + WCU ("=" where it is DynamoDB's)."""
    pairs = (("f_rcu", "l_rcu"), ("f_wcu", "l_wcu"))
    return sum(row[dynamodb] if row[local] == "=" else float(row[local]) for dynamodb, local in pairs)


def chart(rows: list[dict[str, Any]], path: Path) -> None:
    """Horizontal bars per pattern: measured RCU + WCU per call (stacked, solid) above the minimum's (hatched)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clip = min(CHART_CLIP, max(max(r["m_rcu"] + r["m_wcu"], r["f_rcu"] + r["f_wcu"]) for r in rows))
    positions = list(range(len(rows)))
    height = 0.4
    figure, axes = plt.subplots(figsize=(10, 0.3 * len(rows) + 1.4))
    read, write = "#3b75af", "#ef8636"
    solid: dict[str, Any] = {}
    hatched: dict[str, Any] = {"alpha": 0.35, "hatch": "//"}
    for offset, rcu_key, wcu_key, style, what in (
        (-height / 2, "m_rcu", "m_wcu", solid, "measured"),
        (height / 2, "f_rcu", "f_wcu", hatched, "DynamoDB's floor"),
    ):
        ys = [y + offset for y in positions]
        rcu = [min(r[rcu_key], clip) for r in rows]
        wcu = [min(r[wcu_key], clip - c) for r, c in zip(rows, rcu, strict=True)]
        axes.barh(ys, rcu, height, color=read, label=f"{what} RCU", **style)
        axes.barh(ys, wcu, height, left=rcu, color=write, label=f"{what} WCU", **style)
    for y, row in zip(positions, rows, strict=True):
        total, least, local = row["m_rcu"] + row["m_wcu"], row["f_rcu"] + row["f_wcu"], local_total(row)
        text = num(total)
        if not math.isclose(total, least):
            text += f" vs {num(least)}" + ("" if math.isclose(local, least) else f", Local min {num(local)}")
            text += f" (× Local min {row['ratio']})"
        if total > clip or least > clip:
            text += f" = {num(row['m_rcu'])} RCU + {num(row['m_wcu'])} WCU (bar cut)"
        axes.text(min(max(total, least), clip) + clip * 0.01, y, text, va="center", fontsize=7)
    for y, (upper, lower) in enumerate(itertools.pairwise(rows)):
        if upper["pattern"].split(".")[0] != lower["pattern"].split(".")[0]:
            axes.axhline(y + 0.5, color="grey", linewidth=0.5, alpha=0.5)
    axes.set_yticks(positions, [row["pattern"] for row in rows], fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim(0, clip * 1.45)
    axes.set_xlabel("capacity units per call (RCU + WCU); DynamoDB Local")
    axes.set_title(
        "Capacity per call by access pattern: measured on DynamoDB Local (solid), DynamoDB's floor (hatched)",
        fontsize=10,
    )
    axes.grid(axis="x", alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
