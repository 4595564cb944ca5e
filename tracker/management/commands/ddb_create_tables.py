"""Create every missing DynamoDB table and index, then wait until they are ACTIVE."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from ddbmodels.core import tables
from ddbmodels.issues import SELF_FILLING_INDEXES


class Command(BaseCommand):
    help = "Create missing DynamoDB tables and indexes (idempotent) and wait until ACTIVE."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--billing-mode",
            choices=[tables.PAY_PER_REQUEST, tables.PROVISIONED],
            default=settings.DYNAMODB_BILLING_MODE,
            help="on-demand (default from DYNAMODB_BILLING_MODE) or provisioned",
        )
        parser.add_argument("--rcu", type=int, default=5, help="read units per table and index (provisioned)")
        parser.add_argument("--wcu", type=int, default=5, help="write units per table and index (provisioned)")
        parser.add_argument("--no-wait", action="store_true", help="do not wait for ACTIVE")
        parser.add_argument(
            "--drop-retired-indexes",
            action="store_true",
            help="delete the indexes this version no longer reads (once no process of the previous version serves)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        reports = tables.create_all(
            billing_mode=options["billing_mode"],
            rcu=options["rcu"],
            wcu=options["wcu"],
            wait=not options["no_wait"],
            drop_retired=options["drop_retired_indexes"],
        )
        for report in reports:
            verb = "created" if report.created else "exists "
            self.stdout.write(f"{verb} {report.name} {report.status}".rstrip())
            for index in report.indexes_added:
                self.stdout.write(f"  added index {index}")
            for index in report.indexes_retired:
                self.stdout.write(
                    f"  retired index {index}: no longer read, still written with every write; once no process of the"
                    " previous version serves, run again with --drop-retired-indexes"
                )
            for index in report.indexes_dropped:
                self.stdout.write(f"  dropped retired index {index}")
        if any(report.base == "issues" and set(report.indexes_added) - SELF_FILLING_INDEXES for report in reports):
            # The new indexes only hold items that carry their keys: give the existing issues theirs.
            call_command("reindex_issues", stdout=self.stdout)
