"""What the benchmark scripts under ``bench/`` share: the endpoint, arguments, the run, floors, output.

(``floors``: DynamoDB's minimum of a figure against DynamoDB Local's; ``writers``: threads under contention.)

Each ``bench/*.py`` runs as a script (``make bench`` runs every one of them), so the shared parts
live here rather than beside them. A script builds its parser (``parser``, ``levels``), then hands
``run`` two functions: one that measures into a ``Run`` and one that prints it. ``run``:

1. calls ``connect``: it reads the application's variables (``DynamoSettings.from_env``), refuses
   to run without ``DYNAMODB_ENDPOINT_URL`` unless ``--allow-aws`` (exit 2), gives DynamoDB Local
   dummy credentials and points every model at a fresh prefix ``<DYNAMODB_TABLE_PREFIX>bench-<hex>-``;
2. measures; an exception becomes the run's error (an unexpected one with its traceback); every
   table under the prefix is deleted afterwards, whatever happened;
3. prints, then the notes of every capacity figure that is not exactly its floor, then ``finish``:
   the error on stderr, exactly one line of JSON on stdout, and the exit status (0 ok, 1 failed).

Floors (``Run.judge``): every capacity figure is compared with DynamoDB's own minimum, worked out
from AWS's pricing rules (``read_units``, ``write_units``, ``item_size``). Where DynamoDB Local
charges otherwise, the difference is a named ``Difference`` and both floors are printed; the ratio
(``× floor``) divides by Local's floor, the one the measurement can be compared with. Any other
difference must be named too, with its expected size and tolerance. A figure below its floor, or
one its named differences do not account for, fails the run (exit 1).
"""

from __future__ import annotations

import argparse
import contextvars
import json
import os
import secrets
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ddbmodels.core import connection
from devtools.bench.floors import (
    FLOOR_COLUMNS,
    FLOOR_LEGEND,
    LOCAL_EMPTY_QUERY,
    LOCAL_REFUSED_WRITE,
    LOCAL_TRANSACT_INDEX,
    REQUEST_COLUMNS,
    Column,
    Cost,
    Difference,
    Verdict,
    batch_get_units,
    index_entry,
    index_write_units,
    item_size,
    model_size,
    print_notes,
    query_units,
    read_units,
    total,
    update_units,
    write_units,
)
from devtools.bench.writers import Contended, contend, progress_bar

__all__ = [
    "FLOOR_COLUMNS",
    "FLOOR_LEGEND",
    "LOCAL_EMPTY_QUERY",
    "LOCAL_REFUSED_WRITE",
    "LOCAL_TRANSACT_INDEX",
    "REQUEST_COLUMNS",
    "CheckFailed",
    "Column",
    "Contended",
    "Cost",
    "Difference",
    "Run",
    "Target",
    "Verdict",
    "align",
    "batch_get_units",
    "check",
    "columns",
    "connect",
    "contend",
    "count",
    "draw",
    "drop_tables",
    "finish",
    "index_entry",
    "index_write_units",
    "item_size",
    "levels",
    "model_size",
    "parser",
    "print_notes",
    "progress_bar",
    "query_units",
    "read_units",
    "run",
    "show_table",
    "table",
    "total",
    "unexpected_operations",
    "unmetered",
    "update_units",
    "verdicts_error",
    "write_units",
]

T = TypeVar("T")

REFUSAL = (
    "refusing to run: DYNAMODB_ENDPOINT_URL is not set, so this would create tables and write "
    "thousands of items on real AWS (it costs money). Run it against DynamoDB Local:\n"
    "    python -m devtools.services run -- .venv/bin/python {script}\n"
    "or pass --allow-aws if real AWS is what you mean."
)
ALLOW_AWS_HELP = "run without DYNAMODB_ENDPOINT_URL, i.e. against real AWS (creates tables, costs money)"


class CheckFailed(Exception):
    """A result, a count or a figure the benchmark verifies did not hold."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


# ---------------------------------------------------------------------------- arguments


def positive_int(text: str) -> int:
    """An argparse type: an integer ≥ 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be ≥ 1, got {value}")
    return value


def int_list(what: str, maximum: int | None = None) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated integers from 1 (to ``maximum``), at least one; ``what`` names them."""

    def parse(text: str) -> list[int]:
        try:
            levels = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
        if not levels or any(level < 1 or (maximum is not None and level > maximum) for level in levels):
            bounds = "≥ 1" if maximum is None else f"from 1 to {maximum}"
            raise argparse.ArgumentTypeError(f"{what} must be {bounds}, got {text!r}")
        return levels

    return parse


def parser(script: str, doc: str | None) -> argparse.ArgumentParser:
    """A parser for ``bench/<script>.py`` described by its docstring's first line, with ``--allow-aws``."""
    made = argparse.ArgumentParser(prog=f"bench/{script}.py", description=(doc or "").strip().splitlines()[0])
    made.add_argument("--allow-aws", action="store_true", help=ALLOW_AWS_HELP)
    made.add_argument(
        "--quick",
        action="store_true",
        help="small sizes (what `make bench-quick` and `make test` run); options given explicitly still win",
    )
    return made


def quick_sizes(made: argparse.ArgumentParser, args: argparse.Namespace, **sizes: Any) -> argparse.Namespace:
    """With ``--quick``, set each option in ``sizes`` that was left at its default to the small size given.

    ``bench.quick_sizes(parser, args, writers=[1, 4], issues=200)`` after ``parse_args()``: an option
    the caller gave on the command line keeps its value (a value equal to the default counts as left).
    """
    if getattr(args, "quick", False):
        for name, small in sizes.items():
            if getattr(args, name) == made.get_default(name):
                setattr(args, name, small)
    return args


def levels(made: argparse.ArgumentParser, flag: str, default: list[int], help: str, maximum: int | None = None) -> None:
    """An option of comma-separated levels (``--writers 1,4,16``), its default shown in its help."""
    what = flag.lstrip("-").replace("-", " ")
    made.add_argument(
        flag,
        type=int_list(what, maximum),
        default=default,
        metavar="N,N,...",
        help=f"{help} (default: {','.join(map(str, default))})",
    )


def count(made: argparse.ArgumentParser, flag: str, default: int, help: str) -> None:
    """A positive integer option, its default shown in its help."""
    made.add_argument(flag, type=positive_int, default=default, help=f"{help} (default: {default})")


# ---------------------------------------------------------------------------- the endpoint


@dataclass(frozen=True)
class Target:
    """Where a run writes: the application's settings, and the prefix of the run's own tables."""

    settings: connection.DynamoSettings
    prefix: str

    @property
    def endpoint(self) -> str:
        return self.settings.endpoint_url or f"aws:{self.settings.region}"


def refused(settings: connection.DynamoSettings, script: str, allow_aws: bool) -> bool:
    """True, after saying why on stderr, when the run would go to real AWS without ``--allow-aws``."""
    if settings.endpoint_url is None and not allow_aws:
        print(REFUSAL.format(script=script), file=sys.stderr)
        return True
    return False


def connect(script: str, *, allow_aws: bool, tag: str = "") -> Target | None:
    """Settings from the environment, a fresh prefix, every model pointed at it; None when refused (exit 2)."""
    settings = connection.DynamoSettings.from_env()  # the application's own variables
    if refused(settings, script, allow_aws):
        return None
    if settings.endpoint_url is not None and not os.environ.get("AWS_ACCESS_KEY_ID"):
        # DynamoDB Local accepts any signature, but botocore refuses to sign without credentials.
        os.environ["AWS_ACCESS_KEY_ID"] = "local"
        os.environ["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105 (a dummy, for DynamoDB Local only)
        os.environ.pop("AWS_SESSION_TOKEN", None)
    prefix = f"{settings.table_prefix}bench-{secrets.token_hex(4)}-{f'{tag}-' if tag else ''}"
    connection.configure(endpoint_url=settings.endpoint_url, region=settings.region, table_prefix=prefix)
    return Target(settings, prefix)


def drop_tables(prefix: str) -> list[str]:
    """Delete every table whose name starts with ``prefix``; their names."""
    client = connection.client()
    names: list[str] = []
    request: dict[str, Any] = {}
    while True:
        page = client.list_tables(**request)
        names += [name for name in page["TableNames"] if name.startswith(prefix)]
        if "LastEvaluatedTableName" not in page:
            break
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]
    for name in names:
        client.delete_table(TableName=name)
    return names


def unmetered(fn: Callable[[], T]) -> T:
    """``fn()`` in an empty context: no open meter and no access pattern sees its calls."""
    return contextvars.Context().run(fn)


# ---------------------------------------------------------------------------- the run


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


# ---------------------------------------------------------------------------- output


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
