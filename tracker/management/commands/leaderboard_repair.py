"""Re-sync every issue's points with its status, for one tenant (or one of its projects).

    python manage.py leaderboard_repair acme
    python manage.py leaderboard_repair acme --project WEB --json

The status page awards and revokes points right after each change; when that step failed (it
is logged, and never fails the change itself) this puts it right. Safe to run at any time and
as often as you like: an issue's award exists at most once, so nothing is counted twice.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from ddbmodels.issues import PROJECT_KEY_RE
from tracker.management.jobcommand import JobCommand
from tracker.models import Tenant
from tracker.services.leaderboard import leaderboard_repair_job


class Command(JobCommand):
    help = "Award the points missing for resolved issues and take back those of reopened or deleted ones."
    job_name = "leaderboard_repair"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument("tenant", help="tenant slug")
        parser.add_argument("--project", help="only this project key (default: every project of the tenant)")

    def job_key(self, options: dict[str, Any]) -> str:
        return f"{self.job_name}:{options['tenant']}"

    def job_tenant(self, options: dict[str, Any]) -> str | None:
        return str(options["tenant"])

    def work(self, options: dict[str, Any]) -> Any:
        tenant, project = options["tenant"], options["project"]
        if not Tenant.objects.filter(slug=tenant).exists():
            raise CommandError(f"no tenant {tenant!r}")
        if project is not None and not PROJECT_KEY_RE.match(project):
            raise CommandError(f"invalid project key {project!r}: 2–10 capitals or digits, starting with a letter")
        return lambda run: leaderboard_repair_job(run, tenant=tenant, project_key=project)
