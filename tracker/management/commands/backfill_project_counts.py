"""Refresh every project's static item with its issue counts; resumes after an interruption."""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services import maintenance


class Command(JobCommand):
    help = "Visit every project collection and refresh its static item's issue counts (resumable)."
    job_name = "backfill_project_counts"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("--method", default="auto", choices=["auto", "scan", "gsi", "skip-scan"])
        parser.add_argument("--segments", type=int, default=1)

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: maintenance.backfill_project_counts_job(
            run, method=options["method"], segments=options["segments"]
        )
