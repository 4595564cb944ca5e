"""List the distinct partition keys of any DynamoDB table on the endpoint (the distinct-keys pattern).

    python manage.py distinct_keys tracker-issues
    python manage.py distinct_keys tracker-issues --method gsi --index projects --json
    python manage.py distinct_keys some-other-table --method skip-scan --segments 8

Keys go to stdout one per line: strings as they are, numbers in decimal, binaries as
``b64:<base64>``. With ``--json`` stdout holds only the report (method used, requests,
measured RCU, retries, seconds, and auto's estimates). A progress bar goes to stderr, only when
stderr is a terminal.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from ddbmodels.core.errors import DomainError
from ddbmodels.patterns import distinct_keys as dk

BINARY_MARK = "b64:"


def format_key(key: dk.Key) -> str:
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
    if not 1 <= value <= dk.MAX_TOTAL_SEGMENTS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {dk.MAX_TOTAL_SEGMENTS}, got {value}")
    return value


class Command(BaseCommand):
    help = (
        "List the distinct partition keys of a DynamoDB table (any table on the endpoint): "
        "full scan, sparse index, or skip scan; auto picks the cheapest."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table", help="the table's full name as DynamoDB knows it (e.g. tracker-issues)")
        parser.add_argument(
            "--method",
            choices=dk.METHODS,
            default=dk.AUTO,
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

    def handle(self, *args: Any, **options: Any) -> None:
        method: str = options["method"]
        if method == dk.GSI and not options["index"]:
            raise CommandError("--method gsi needs --index NAME: a sparse index with one item per collection")
        bar = tqdm(
            desc=f"{options['table']} keys",
            unit="key",
            file=sys.stderr,
            disable=not sys.stderr.isatty(),
            leave=False,
        )

        def progress(keys: int, requests: int) -> None:
            bar.set_postfix_str(f"{requests} requests", refresh=False)
            bar.update(keys - bar.n)

        try:
            with bar:
                result = dk.distinct_keys(
                    options["table"],
                    method,
                    segments=options["segments"],
                    index_name=options["index"] or None,
                    on_progress=progress,
                )
        except DomainError as error:
            raise CommandError(str(error)) from error

        if options["json"]:
            self.stdout.write(json.dumps(result.report.as_dict(), ensure_ascii=False))
            return
        for key in result.keys:
            self.stdout.write(format_key(key))
