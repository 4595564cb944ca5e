"""What the benchmark scripts under ``bench/`` share: the endpoint, the table prefix, arguments, output.

Each ``bench/*.py`` runs as a script (``make bench`` runs every one of them), so the shared parts
live here rather than beside them. A script:

1. parses its arguments (``positive_int``, ``int_list`` for ``--writers 1,4,16`` and the like);
2. calls ``connect``: it reads the application's variables (``DynamoSettings.from_env``), refuses
   to run without ``DYNAMODB_ENDPOINT_URL`` unless ``--allow-aws`` (``None``: exit 2), gives
   DynamoDB Local dummy credentials and points every model at a fresh prefix
   ``<DYNAMODB_TABLE_PREFIX>bench-<hex>-``;
3. measures; ``failure_text`` makes an exception the run's error (an unexpected one with its traceback);
4. prints its figures (``table`` renders right-aligned columns; ``item_size`` is DynamoDB's size
   of an item) and ends with ``finish``: the error on stderr, exactly one line of JSON on stdout,
   and the exit status (0 ok, 1 failed).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tqdm import tqdm

from ddbmodels.core import connection

Column = tuple[str, str, str]  # title, key in the row, format spec

REFUSAL = (
    "refusing to run: DYNAMODB_ENDPOINT_URL is not set, so this would create tables and write "
    "thousands of items on real AWS (it costs money). Run it against DynamoDB Local:\n"
    "    python -m devtools.services run -- .venv/bin/python {script}\n"
    "or pass --allow-aws if real AWS is what you mean."
)
ALLOW_AWS_HELP = "run without DYNAMODB_ENDPOINT_URL, i.e. against real AWS (creates tables, costs money)"


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


def add_allow_aws(parser: argparse.ArgumentParser) -> None:
    """The ``--allow-aws`` flag that ``connect`` asks for."""
    parser.add_argument("--allow-aws", action="store_true", help=ALLOW_AWS_HELP)


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


def use_local_credentials(settings: connection.DynamoSettings) -> None:
    """Dummy AWS credentials for DynamoDB Local, unless the environment has its own."""
    if settings.endpoint_url is not None and not os.environ.get("AWS_ACCESS_KEY_ID"):
        # DynamoDB Local accepts any signature, but botocore refuses to sign without credentials.
        os.environ["AWS_ACCESS_KEY_ID"] = "local"
        os.environ["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105 (a dummy, for DynamoDB Local only)
        os.environ.pop("AWS_SESSION_TOKEN", None)


def unique_prefix(settings: connection.DynamoSettings, tag: str = "") -> str:
    """``<DYNAMODB_TABLE_PREFIX>bench-<8 hex>-`` (then ``<tag>-``): tables no other run uses."""
    return f"{settings.table_prefix}bench-{secrets.token_hex(4)}-{f'{tag}-' if tag else ''}"


def connect(script: str, *, allow_aws: bool, tag: str = "") -> Target | None:
    """Settings from the environment, a fresh prefix, every model pointed at it; None when refused (exit 2)."""
    settings = connection.DynamoSettings.from_env()  # the application's own variables
    if refused(settings, script, allow_aws):
        return None
    use_local_credentials(settings)
    prefix = unique_prefix(settings, tag)
    connection.configure(endpoint_url=settings.endpoint_url, region=settings.region, table_prefix=prefix)
    return Target(settings, prefix)


# ---------------------------------------------------------------------------- output


def progress_bar(**options: Any) -> tqdm:
    """A tqdm bar on stderr, shown only when stderr is a terminal."""
    return tqdm(file=sys.stderr, disable=not sys.stderr.isatty(), **options)


def align(header: Sequence[str], lines: Sequence[Sequence[str]], *, left: int = 0) -> str:
    """Columns two spaces apart, a rule of dashes under the header; the first ``left`` flush left, the rest right."""
    widths = [max([len(title), *(len(line[i]) for line in lines)]) for i, title in enumerate(header)]

    def row(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([row(header), "  ".join("-" * width for width in widths), *(row(line) for line in lines)])


def table(columns: Sequence[Column], rows: Sequence[Mapping[str, Any]]) -> str:
    """One line per row: each column's value formatted with its spec, right-aligned under its title."""
    cells = [[format(row[key], spec) for _, key, spec in columns] for row in rows]
    return align([title for title, _, _ in columns], cells)


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


# ---------------------------------------------------------------------------- item sizes


def attribute_size(value: Mapping[str, Any]) -> int:
    """DynamoDB's size of an attribute value (the documented rules; numbers ≈ digits / 2 + 1)."""
    (tag, raw), *_ = value.items()
    if tag == "S":
        return len(raw.encode())
    if tag == "B":
        return len(raw)
    if tag == "N":
        digits = len(str(Decimal(raw)).lstrip("-").replace(".", "").lstrip("0")) or 1
        return (digits + 1) // 2 + 1
    if tag in ("BOOL", "NULL"):
        return 1
    if tag == "M":
        return 3 + sum(len(k.encode()) + attribute_size(v) + 1 for k, v in raw.items())
    if tag == "L":
        return 3 + sum(attribute_size(v) + 1 for v in raw)
    return sum(len(x) if isinstance(x, bytes) else len(str(x).encode()) for x in raw)  # sets


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())
