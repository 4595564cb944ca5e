"""Distinct project collections of the issues table (the job beat runs nightly)."""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services import maintenance


class Command(JobCommand):
    help = "Enumerate every project collection of the issues table by the cheapest distinct-keys method."
    job_name = "enumerate_projects"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("--method", default="auto", choices=["auto", "scan", "gsi", "skip-scan"])
        parser.add_argument("--segments", type=int, default=1)

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: maintenance.enumerate_projects_job(
            run, method=options["method"], segments=options["segments"]
        )
