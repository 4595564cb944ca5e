"""Offboard a tenant: export every item and file to archive storage, verify, then delete them."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandError

from tracker.management.jobcommand import JobCommand
from tracker.services import offboarding


class Command(JobCommand):
    help = (
        "Offboard tenant SLUG: retire the slug, remove its memberships, export every DynamoDB item and "
        "attachment file to archive storage (manifest + SHA-256), read the archive back, then delete "
        "them. Resumes from its checkpoint after a crash. Asks first unless --yes."
    )
    job_name = "offboard_tenant"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("slug", help="the tenant's slug")
        parser.add_argument("--yes", action="store_true", help="do not ask: the tenant's data will be deleted")

    def job_key(self, options: dict[str, Any]) -> str:
        return offboarding.offboarding_job_name(options["slug"])

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: offboarding.offboard_tenant_job(run, slug=options["slug"])

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        if not options["yes"]:
            if not sys.stdin.isatty():
                raise CommandError(
                    f"offboarding deletes every item of {slug}: confirm with --yes. Nothing was changed."
                )
            answer = input(f"This exports, then DELETES every item and file of tenant {slug}. Type its slug to go on: ")
            if answer.strip() != slug:
                raise CommandError("Not confirmed. Nothing was changed.")
        super().handle(*args, **options)

    def render(self, report: dict[str, Any]) -> None:
        super().render(report)
        result = report["result"]
        if not result["finished"]:
            left = ", ".join(f"{n} {table}" for table, n in result["remaining"].items() if n)
            self.stdout.write(self.style.WARNING(f"Written after the export and still stored: {left}. Run it again."))
