"""Recreate an events table from its archive (the round trip proves nothing was lost)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from tracker.management.jobcommand import JobCommand
from tracker.selectors.archives import archive_names, restore_refusal
from tracker.services import maintenance


class Command(JobCommand):
    help = "Recreate an events table from its archive. ARCHIVE: the archived table's name (see --list)."
    job_name = "restore_event_table"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("archive", nargs="?", help="archived table name, e.g. tracker-events-2026-07")
        parser.add_argument("--table", help="restore under another table name")
        parser.add_argument("--list", action="store_true", help="list the archives and exit")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["list"]:
            for name in archive_names():
                self.stdout.write(name)
            return
        if not options["archive"]:
            raise CommandError("give ARCHIVE (or --list to see them)")
        if refusal := restore_refusal():
            raise CommandError(f"restore_event_table: refused, {refusal}")
        super().handle(*args, **options)

    def job_key(self, options: dict[str, Any]) -> str:
        return f"restore_event_table:{options['archive']}"

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: maintenance.restore_event_table_job(run, archive=options["archive"], table=options["table"])
