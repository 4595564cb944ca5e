"""One run of a bench script: connect, measure, drop its tables, print, then exactly one JSON line."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from devtools.bench.endpoint import Target, connect, drop_tables
from devtools.bench.floors import print_notes
from devtools.bench.verdicts import CheckFailed, Run, verdicts_error


def run(
    script: str,
    args: argparse.Namespace,
    measure: Callable[[Run], None],
    show: Callable[[Run], None],
    *,
    headline: str = "",
    tag: str = "",
    expected: tuple[type[Exception], ...] = (),
    default: Callable[[Any], Any] | None = None,
) -> int:
    """Connect, ``measure``, drop the run's tables, ``show``, the notes, the JSON line; the exit status.

    ``headline`` is formatted with the arguments (``", {issues} issues"``) after the endpoint and prefix.
    """
    target = connect(f"bench/{script}.py", allow_aws=args.allow_aws, tag=tag)
    if target is None:
        return 2
    print(f"{script}: {target.endpoint}, tables {target.prefix}*{headline.format(**vars(args))}")
    current = Run(target, args)
    error: str | None = None
    try:
        measure(current)
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = failure_text(failure, (CheckFailed, *expected))
    finally:
        try:
            deleted = drop_tables(target.prefix)
            print(f"deleted {len(deleted)} table(s)", file=sys.stderr)
        except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
            print(f"warning: could not delete the tables {target.prefix}*: {failure}", file=sys.stderr)
    show(current)
    print_notes(current.verdicts)
    if error is None:
        error = verdicts_error(current.verdicts)
    figures = {**current.figures, "floors": [v.as_dict() for v in current.verdicts]}
    return finish(script, target, error, figures, default=default)


def failure_text(failure: Exception, expected: tuple[type[Exception], ...]) -> str:
    """The run's error: an expected failure's message; anything else with its traceback on stderr."""
    if isinstance(failure, expected):
        return str(failure)
    traceback.print_exception(failure)
    return f"{type(failure).__name__}: {failure}"


def finish(
    benchmark: str,
    target: Target,
    error: str | None,
    figures: Mapping[str, Any],
    *,
    default: Callable[[Any], Any] | None = None,
) -> int:
    """The error on stderr, then exactly one line of JSON on stdout; the exit status, 1 when there was an error."""
    if error:
        print(f"FAILED: {error}", file=sys.stderr)
    summary = {
        "benchmark": benchmark,
        "ok": error is None,
        "endpoint": target.endpoint,
        "region": target.settings.region,
        "table_prefix": target.prefix,
        **figures,
        **({"error": error} if error else {}),
    }
    print(json.dumps(summary, separators=(",", ":"), default=default))
    return 1 if error else 0
