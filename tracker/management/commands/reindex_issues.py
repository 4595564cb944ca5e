"""Fill the issue lists' indexes and label entries for issues written before they existed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from ddbmodels import issues
from ddbmodels.core import capacity


class Command(BaseCommand):
    help = (
        "Set every issue's list-index keys and write its label entries (idempotent). "
        "ddb_create_tables runs it when it adds the list indexes to an existing issues table."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tenant", help="only this team's projects (slug); default: every team")

    def handle(self, *args: Any, **options: Any) -> None:
        pairs = [(t, k) for t, k in issues.all_project_keys() if options["tenant"] in (None, t)]
        totals = issues.Reindexed(issues=0, keys_set=0, entries=0)
        with capacity.measure() as meter:
            for tenant, key in tqdm(pairs, desc="projects", unit="project", disable=not pairs):
                done = issues.project_reindex(tenant=tenant, project_key=key)
                totals = issues.Reindexed(
                    issues=totals.issues + done.issues,
                    keys_set=totals.keys_set + done.keys_set,
                    entries=totals.entries + done.entries,
                )
        self.stdout.write(
            f"reindexed {len(pairs)} projects: {totals.issues} issues read, {totals.keys_set} given their "
            f"list keys, {totals.entries} label entries written "
            f"({meter.rcu:.1f} RCU, {meter.wcu:.1f} WCU, {meter.requests} requests)"
        )
