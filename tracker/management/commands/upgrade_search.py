"""Upgrade an existing install in place: per-label entries, per-record idempotency keys, the search engine.

    python manage.py ddb_create_tables          # creates ``labels`` and ``idempotency_keys``
    python manage.py upgrade_search --max-wcu 200
    python manage.py upgrade_search --drop-old-tables   # once no process of the previous version serves

Resumable (a checkpoint under the job's fencing token), one run at a time, safe to run again: a
rerun finds nothing left to copy or drop. ``--check-labels`` compares every team's label entries
with their issues and repairs the stale ones (what a writer that stopped between an issue's update
and its entries left, when its change event never ran). ``--check-milestones`` writes the name claims of
milestones made before names were claimed (``tracker.services.milestones.milestone_claims_job``).
``tracker.services.search_upgrade`` says what each stage does.
"""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services.milestones import milestone_claims_job
from tracker.services.search_upgrade import labels_check_job, upgrade_search_job


class Command(JobCommand):
    help = (
        "Build the label entries (keyed per label) and the per-record idempotency keys from today's data, "
        "rebuild the search index; with --drop-old-tables (once no process of the previous version serves) "
        "copy the old idempotency records once more and drop the old terms and idempotency tables."
    )
    job_name = "upgrade_search"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("--max-wcu", type=float, default=None, help="write units per second at most")
        parser.add_argument("--restart", action="store_true", help="ignore a saved checkpoint and start over")
        parser.add_argument(
            "--drop-old-tables",
            action="store_true",
            help="also drop the old terms and idempotency tables (after copying the old records once more)",
        )
        parser.add_argument(
            "--check-labels",
            action="store_true",
            help="only compare every team's label entries with their issues and repair the stale ones",
        )
        parser.add_argument(
            "--check-milestones",
            action="store_true",
            help="only write the name claims of milestones made before names were claimed (names two share: listed)",
        )

    def job_key(self, options: dict[str, Any]) -> str:
        if options["check_milestones"]:
            return "milestone_claims"
        return "labels_check" if options["check_labels"] else self.job_name

    def work(self, options: dict[str, Any]) -> Any:
        def say(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        if options["check_milestones"]:
            return lambda run: milestone_claims_job(run, say=say)
        if options["check_labels"]:
            return lambda run: labels_check_job(run, say=say)
        return lambda run: upgrade_search_job(
            run, max_wcu=options["max_wcu"], say=say, restart=options["restart"], drop=options["drop_old_tables"]
        )
