"""Base for management commands that run a maintenance job exactly as its Celery task does."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from tracker.jobs import JobRun, run_job


class JobCommand(BaseCommand):
    """Runs ``self.job_name`` through ``run_job``: same lock, fencing and capacity report."""

    job_name = ""

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")

    def work(self, options: dict[str, Any]) -> Callable[[JobRun], dict[str, Any]]:
        raise NotImplementedError

    def job_key(self, options: dict[str, Any]) -> str:
        return self.job_name

    def job_tenant(self, options: dict[str, Any]) -> str | None:
        """The team the job belongs to (its item goes with the team at offboarding), if any."""
        return None

    def handle(self, *args: Any, **options: Any) -> None:
        bar: tqdm | None = None

        def progress(meta: dict[str, Any]) -> None:
            nonlocal bar
            if not sys.stderr.isatty():
                return
            total = meta.get("total")
            if bar is None:
                bar = tqdm(total=total, desc=self.job_key(options), file=sys.stderr, unit="step")
            if total is not None and bar.total != total:
                bar.total = total
            done = meta.get("done", meta.get("keys"))
            if done is not None:
                bar.n = done
            bar.set_postfix({k: v for k, v in meta.items() if k not in ("done", "total")}, refresh=True)

        try:
            report = run_job(
                self.job_key(options), self.work(options), on_progress=progress, tenant=self.job_tenant(options)
            )
        finally:
            if bar is not None:
                bar.close()
        if report["status"] == "skipped":
            raise CommandError(f"{report['job']}: skipped, {report['reason']}")
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, default=str))
            return
        self.render(report)

    def render(self, report: dict[str, Any]) -> None:
        capacity = report["capacity"]
        self.stdout.write(json.dumps(report["result"], indent=2, default=str))
        self.stdout.write(
            self.style.SUCCESS(
                f"{report['job']}: done in {report['seconds']} s — {capacity['rcu']} RCU, {capacity['wcu']} WCU, "
                f"{capacity['requests']} requests"
            )
        )
