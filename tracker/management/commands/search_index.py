"""The search index: ``rebuild`` it from DynamoDB (resumable), or ``check`` it against DynamoDB (and ``--fix`` it)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tracker.models import Tenant
from tracker.search import indexing
from tracker.search.models import SearchDocument


class Command(BaseCommand):
    help = (
        "rebuild: write every issue's and comment's search document from DynamoDB, one Query page at a "
        "time under an RCU budget, resuming from its checkpoint (per tenant, or per project with "
        "--project). check: compare every issue's and comment's version with its document and report "
        "the missing, stale and extra ones; --fix repairs them. Every tenant unless --tenant."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["rebuild", "check"])
        parser.add_argument("--tenant", help="only this tenant (slug)")
        parser.add_argument("--project", help="rebuild: only this project of --tenant (key)")
        parser.add_argument("--restart", action="store_true", help="rebuild: ignore a checkpoint left by a killed run")
        parser.add_argument("--fix", action="store_true", help="check: repair what it finds")
        parser.add_argument(
            "--rcu",
            type=float,
            default=settings.SEARCH_INDEX_RCU_PER_SECOND,
            help="RCU per second to read at most (default SEARCH_INDEX_RCU_PER_SECOND)",
        )

    def _tenants(self, options: dict[str, Any]) -> list[str]:
        if options["tenant"]:
            return [options["tenant"]]
        known = set(Tenant.objects.values_list("slug", flat=True))
        if options["action"] == "check":  # documents left by a tenant that is no longer here are extra too
            known |= set(SearchDocument.objects.values_list("tenant", flat=True).distinct())
        return sorted(known)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["project"] and not options["tenant"]:
            raise CommandError("--project needs --tenant.")
        if options["rcu"] <= 0:
            raise CommandError("--rcu must be positive.")
        say = self.stdout.write
        problems = 0
        for tenant in self._tenants(options):
            if options["action"] == "rebuild":
                report = indexing.rebuild_with_stored_checkpoint(
                    tenant=tenant,
                    project_key=options["project"],
                    restart=options["restart"],
                    progress=say,
                    rcu_per_second=options["rcu"],
                )
                say(self.style.SUCCESS(f"{tenant}: rebuilt. {json.dumps(report)}"))
                continue
            result = indexing.check(tenant=tenant, fix=options["fix"], progress=say, rcu_per_second=options["rcu"])
            for what in ("missing", "stale", "extra"):
                found = getattr(result, what)
                if found:
                    shown = ", ".join(found[:20]) + (f" … and {len(found) - 20} more" if len(found) > 20 else "")
                    say(f"{tenant}: {len(found)} {what}: {shown}")
            if result.consistent:
                say(self.style.SUCCESS(f"{tenant}: consistent ({result.rcu:g} RCU)."))
            elif options["fix"]:
                say(self.style.SUCCESS(f"{tenant}: fixed {result.fixed} documents ({result.rcu:g} RCU)."))
            else:
                problems += 1
                say(self.style.WARNING(f"{tenant}: not consistent; run again with --fix to repair."))
        if problems:
            raise CommandError(f"{problems} tenant(s) with documents out of step with DynamoDB.")
