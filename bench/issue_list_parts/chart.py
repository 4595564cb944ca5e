"""The chart of ``bench/issue_lists.py``: RCU per list against the project's size."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def chart(by_size: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """RCU per list against the project's size (log x): the old filtered list rising, the new ones flat.

    Left, every list on a log RCU scale (a list that read nothing, 0 RCU on Local, has no point);
    right, the new lists alone on a linear scale, nudged sideways so that equal lines stay visible.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(by_size, key=int)
    xs = [int(size) for size in sizes]
    markers = "os^vD<>pXh*"
    figure, (both, new) = plt.subplots(1, 2, figsize=(13, 5.5))
    for index, first in enumerate(by_size[sizes[0]]):
        values = [by_size[size][index]["m_rcu"] for size in sizes]
        old = first["old"]
        style: dict[str, Any] = {
            "marker": markers[index % len(markers)],
            "linewidth": 2.5 if old else 1.2,
            "linestyle": "-" if old else "--",
            "label": ("before: " if old else "") + first["list"],
        }
        if old:
            style["color"] = "crimson"
        both.plot(xs, [v if v > 0 else None for v in values], **style)
        if not old:
            nudge = 1 + 0.04 * (index - 4)
            new.plot([x * nudge for x in xs], values, **style)
    for axes in (both, new):
        axes.set_xscale("log")
        axes.set_xlabel("issues in the project (log scale)")
        axes.grid(True, which="both", alpha=0.3)
    both.set_yscale("log")
    both.set_ylabel("RCU per page (log scale)")
    both.set_title("Every list, and the old filtered one")
    new.set_ylim(bottom=0)
    new.set_ylabel("RCU per page")
    new.set_title("The index-backed lists (one request each)")
    handles, labels = both.get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=8, loc="lower center", ncol=4)
    figure.suptitle("Issue lists: RCU per page against the project's size (measured on DynamoDB Local)")
    figure.tight_layout(rect=(0, 0.14, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
