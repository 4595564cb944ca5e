"""Export a project's issues as GitHub JSON, Jira CSV or plain CSV (the formats import_issues reads), streaming."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ddbmodels import issues
from ddbmodels.core import capacity
from tracker.imports import FORMATS, export


class Command(BaseCommand):
    help = (
        "Write a project's issues and comments in an import format, page by page, to --out or standard output. "
        "In the CSV formats (csv, jira) a cell that a spreadsheet would run as a formula (starting with "
        "= + - @, a tab or a carriage return) is written with a leading ' so that it shows as text; "
        "import_issues takes that ' off again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tenant", help="the team's slug")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
        parser.add_argument("--project", required=True, help="the project key")
        parser.add_argument("--out", help="a file to write (default: standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant, key = options["tenant"], options["project"]
        if issues.project_get(tenant=tenant, key=key) is None:
            raise CommandError(f"team {tenant!r} has no project {key!r}")
        with capacity.measure() as meter:
            if options["out"]:
                with open(options["out"], "w", encoding="utf-8", newline="") as out:
                    count = export.write(options["fmt"], out, tenant=tenant, project_key=key)
            else:
                count = export.write(options["fmt"], self.stdout, tenant=tenant, project_key=key)  # type: ignore[arg-type]
        sys.stderr.write(f"exported {count} issues of {key} ({meter.rcu:.1f} RCU, {meter.requests} requests)\n")
