"""Import a team's issues from GitHub, Jira or plain-CSV exports, every project in one interleaved bulk load."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.core.errors import DomainError
from ddbmodels.core.keys import utcnow
from tracker.imports import FORMATS, Record, parse
from tracker.imports import load as bulk
from tracker.imports import projects as import_projects
from tracker.models import Tenant
from tracker.search import indexing as search_indexing
from tracker.services.projects import project_counts_refresh

IMPORTED_BY = "import"


def project_argument(value: str) -> tuple[str, Path]:
    key, sep, path = value.partition("=")
    if not sep or not issues.PROJECT_KEY_RE.match(key) or not path:
        raise ValueError(f"expected KEY=PATH with an uppercase project key, got {value!r}")
    return key, Path(path)


class Command(BaseCommand):
    help = (
        "Import issues (numbers, titles, bodies, states, labels, people, dates, comments) into a team's projects; "
        "a project is created when missing. Writes are interleaved across the projects, held to --max-wcu, "
        "checkpointed (a rerun or a resume writes nothing twice)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tenant", help="the team's slug")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
        parser.add_argument(
            "--project",
            action="append",
            required=True,
            type=project_argument,
            metavar="KEY=PATH",
            help="a project key and its export file (repeat for several projects)",
        )
        parser.add_argument("--max-wcu", type=float, default=None, help="write budget, WCU per second")
        parser.add_argument("--dry-run", action="store_true", help="parse and report; write nothing")
        parser.add_argument("--restart", action="store_true", help="ignore a saved checkpoint, write everything")
        parser.add_argument(
            "--by",
            default=IMPORTED_BY,
            metavar="USERNAME",
            help=f"who imports, as each issue's history says (default: {IMPORTED_BY})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tenant: str = options["tenant"]
        if not Tenant.objects.filter(slug=tenant).exists():
            raise CommandError(f"no team {tenant!r}")
        if options["max_wcu"] is not None and options["max_wcu"] <= 0:
            raise CommandError("--max-wcu must be positive")
        pairs: list[tuple[str, Path]] = options["project"]
        keys = [key for key, _ in pairs]
        if len(set(keys)) != len(keys):
            raise CommandError("a project is named twice")
        fingerprint = hashlib.sha256(f"{tenant}\n{options['fmt']}".encode())
        projects: dict[str, list[Record]] = {}
        try:
            for key, path in pairs:
                projects[key] = parse(options["fmt"], path)
                fingerprint.update(f"\n{key}\n".encode() + path.read_bytes())
        except DomainError as error:
            raise CommandError(str(error)) from error
        origin = bulk.Origin(source=options["fmt"], by=options["by"], at=utcnow())
        plan = bulk.plan(tenant, projects, fingerprint=fingerprint.hexdigest(), origin=origin)
        for key, count in plan.issues.items():
            numbers = [r.number for r in projects[key]]
            top = max(numbers, default=0)
            self.stdout.write(f"{key}: {count} issues (numbers up to {top}, {top - count} gaps)")
        self.stdout.write(
            f"{len(plan.requests)} items to write ({plan.comments} comments, the rest issues and their "
            f"label entries), at least {plan.minimum_wcu} WCU"
        )
        if plan.comments:
            self.stdout.write(
                "comments keep their authors' names from the export as '<name> (imported)': "
                "no account here becomes their author (only a comment's author may edit or delete it)"
            )
        if options["dry_run"]:
            self.stdout.write("dry run: nothing written")
            return
        with capacity.measure() as meter:
            try:
                held = import_projects.hold(
                    tenant=tenant,
                    job=plan.job,
                    projects=projects,
                    created_by=IMPORTED_BY,
                    own_numbers=options["restart"],
                )
            except DomainError as error:
                raise CommandError(str(error)) from error
            for project in held:
                if project.created:
                    self.stdout.write(f"{project.key}: project created")
            self.stdout.write(f"{', '.join(plan.issues)}: closed to new issues until the import is done")
            with tqdm(total=len(plan.requests), unit="item", desc="import", disable=None) as bar:
                bar.update(0)
                done = bulk.run(plan, max_wcu=options["max_wcu"], restart=options["restart"], on_batch=bar.update)
            if done.written:
                for key in plan.issues:
                    project_counts_refresh(tenant=tenant, key=key)
                    search_indexing.rebuild_after_import(tenant=tenant, project_key=key)
            import_projects.release(tenant=tenant, job=plan.job, keys=list(plan.issues))
        if not done.written:
            self.stdout.write(f"already imported ({done.skipped} items written by an earlier run): nothing written")
        else:
            budget = f" under a budget of {options['max_wcu']:g} WCU/s" if options["max_wcu"] else ""
            self.stdout.write(
                f"wrote {done.written} items in {done.batches} BatchWriteItem requests"
                + (f" (resumed after {done.skipped})" if done.skipped else "")
                + f": {done.wcu:.1f} WCU against a minimum of {plan.minimum_wcu}, "
                f"{done.seconds:.2f} s, {done.rate:.1f} WCU/s{budget}"
            )
        self.stdout.write(
            f"all DynamoDB calls: {meter.wcu:.1f} WCU, {meter.rcu:.1f} RCU, {meter.requests} requests "
            "(with the checkpoint after each batch, project creation and counts)"
        )
