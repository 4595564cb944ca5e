"""Create the next period's events table ahead of time; set hot/cold throughput (beat: daily)."""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services import maintenance


class Command(JobCommand):
    help = "Create the next events table ahead of time; hot throughput on the current one, cold on older ones."
    job_name = "rotate_event_tables"

    def work(self, options: dict[str, Any]) -> Any:
        return maintenance.rotate_event_tables_job
