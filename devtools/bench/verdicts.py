"""A run's figures and verdicts against the floors; the checks that fail it."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from devtools.bench.endpoint import Target
from devtools.bench.floors import Cost, Difference, Verdict


class CheckFailed(Exception):
    """A result, a count or a figure the benchmark verifies did not hold."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


@dataclass
class Run:
    """One bench run: where it writes, its figures (the JSON), and its verdicts."""

    target: Target
    args: argparse.Namespace
    figures: dict[str, Any] = field(default_factory=dict)
    verdicts: list[Verdict] = field(default_factory=list)

    def judge(
        self,
        name: str,
        measured: Cost,
        floor: Cost,
        *,
        local: Difference | None = None,
        extras: Iterable[Difference] = (),
        per: float = 1,
    ) -> Verdict:
        """Record ``measured`` against ``floor`` (DynamoDB's), ``local`` (Local's difference) and named ``extras``."""
        verdict = Verdict(name, measured, floor, local, tuple(extras), per)
        self.verdicts.append(verdict)
        return verdict


def unexpected_operations(
    by_operation: Mapping[str, int], judged: Iterable[str], expected: Mapping[str, tuple[int, int]]
) -> list[str]:
    """A meter's operations, besides the ``judged`` ones, outside their ``expected`` (least, most) counts.

    ``["GetItem ×1 (0…0)"]``: an operation not expected at all must not happen; an expected one must, within bounds.
    """
    skip = set(judged)
    seen = {op: n for op, n in by_operation.items() if op not in skip and n}
    return [
        f"{op} ×{seen.get(op, 0)} ({least}…{most})"
        for op in sorted({*seen, *expected})
        for least, most in [expected.get(op, (0, 0))]
        if not least <= seen.get(op, 0) <= most
    ]


def verdicts_error(verdicts: Sequence[Verdict]) -> str | None:
    """The run's error from its verdicts: none judged (the bench proved nothing), or the figures not explained."""
    if not verdicts:
        return "no figure was judged: the bench recorded no verdict against a floor"
    wrong = [v.name for v in verdicts if not v.ok]
    if wrong:
        return f"{len(wrong)} figure(s) below their floor or not explained: {', '.join(wrong)}"
    return None
