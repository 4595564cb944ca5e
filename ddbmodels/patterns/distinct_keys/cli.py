"""The distinct-keys command line: one definition for ``python -m ddbmodels`` and ``manage.py distinct_keys``.

Both entry points take the same arguments (``add_arguments``), check them the same way
(``argument_error``), list the keys with ``run`` and print what ``output_lines`` returns: keys one
per line (strings as they are, numbers in decimal, binaries as ``b64:<base64>``), or with
``--json`` only the report. A progress bar goes to stderr, only when stderr is a terminal (tqdm is
imported only then, so a piped run starts faster).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from ddbmodels.patterns.distinct_keys import AUTO, GSI, MAX_TOTAL_SEGMENTS, METHODS, Key, Result, distinct_keys
from ddbmodels.patterns.distinct_keys.methods import ProgressCallback

BINARY_MARK = "b64:"
DESCRIPTION = (
    "List the distinct partition keys of a DynamoDB table (any table on the endpoint): "
    "full scan, sparse index, or skip scan; auto picks the cheapest."
)


def format_key(key: Key) -> str:
    """One output line: str as is, int/Decimal in decimal notation, bytes as ``b64:`` + base64."""
    if isinstance(key, bytes):
        return BINARY_MARK + base64.b64encode(key).decode("ascii")
    if isinstance(key, Decimal):
        return format(key, "f") if abs(key.adjusted()) < 40 else str(key)
    return str(key)


def segment_count(text: str) -> int:
    """argparse type of --segments: an integer from 1 to DynamoDB's 1,000,000."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 1 <= value <= MAX_TOTAL_SEGMENTS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_TOTAL_SEGMENTS}, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TABLE, --method, --segments, --index, --json."""
    parser.add_argument("table", help="the table's full name as DynamoDB knows it (e.g. tracker-issues)")
    parser.add_argument(
        "--method",
        choices=METHODS,
        default=AUTO,
        help="scan: read everything; gsi: scan a sparse index with one item per collection (--index); "
        "skip-scan: one Limit-1 Scan per collection; auto (default): the cheapest estimate",
    )
    parser.add_argument(
        "--segments", type=segment_count, default=1, help="parallel scan segments, on threads (default: 1)"
    )
    parser.add_argument(
        "--index",
        metavar="NAME",
        help="a sparse KEYS_ONLY index with one item per collection (gsi; auto may use it)",
    )
    parser.add_argument("--json", action="store_true", help="print only the report, as JSON, instead of the keys")


def argument_error(method: str, index: str | None) -> str | None:
    """No DynamoDB call — what is wrong with the arguments before anything is read, or None."""
    if method == GSI and not index:
        return "--method gsi needs --index NAME: a sparse index with one item per collection"
    return None


@contextlib.contextmanager
def _progress(table: str) -> Iterator[ProgressCallback | None]:
    """A tqdm bar on stderr when it is a terminal, else nothing (and no tqdm import)."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(desc=f"{table} keys", unit="key", file=sys.stderr, leave=False) as bar:

        def progress(keys: int, requests: int) -> None:
            bar.set_postfix_str(f"{requests} requests", refresh=False)
            bar.update(keys - bar.n)

        yield progress


def run(table: str, *, method: str = AUTO, segments: int = 1, index: str | None = None) -> Result:
    """DescribeTable, then the method's Scans (``distinct_keys``), with a progress bar on a terminal."""
    with _progress(table) as progress:
        return distinct_keys(table, method, segments=segments, index_name=index or None, on_progress=progress)


def output_lines(result: Result, *, as_json: bool) -> list[str]:
    """No DynamoDB call — what goes to stdout: the report as one JSON line, or the keys one per line."""
    if as_json:
        return [json.dumps(result.report.as_dict(), ensure_ascii=False)]
    return [format_key(key) for key in result.keys]


def options_of(namespace: argparse.Namespace | dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``run`` from parsed options (argparse's namespace or Django's dict)."""
    values = vars(namespace) if isinstance(namespace, argparse.Namespace) else namespace
    return {"method": values["method"], "segments": values["segments"], "index": values["index"]}
