"""Archive events tables past retention: export, verify, then drop (beat: daily)."""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services import maintenance


class Command(JobCommand):
    help = "Export events tables older than EVENTS_RETENTION periods to archive storage, verify, then drop them."
    job_name = "archive_event_tables"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("--dry-run", action="store_true", help="say what would be archived; change nothing")

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: maintenance.archive_event_tables_job(run, dry_run=options["dry_run"])
