"""Load demo data: 3 teams, users with known passwords, projects and a few hundred issues with their last weeks.

The issues (titles, descriptions, who opened and took them, how far they got, comments,
@mentions) come from ``tracker.demo``: five weeks of made-up work, written in bulk with every
change in the issues' history, watchers, and the last three days' notifications in people's inboxes.
"""

from __future__ import annotations

import random
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ddbmodels import issues, orders, scores
from ddbmodels.core.keys import utcnow
from tracker.demo import history_diffs as demo_history_diffs
from tracker.demo import labels as demo_labels
from tracker.demo import milestones as demo_milestones
from tracker.demo import orders as demo_orders
from tracker.demo import preferences as demo_preferences
from tracker.demo import story
from tracker.models import Membership, Tenant
from tracker.search import indexing as search_indexing
from tracker.services.addresses import address_confirmed, address_mark_confirmed
from tracker.services.projects import project_counts_refresh

DEMO_PASSWORD = "tracker-demo"  # noqa: S105  (published demo logins, printed by make run)
TENANTS = {
    "acme": ("Acme Corp", {"WEB": ("Website", 120), "API": ("Public API", 60), "OPS": ("Operations", 30)}),
    "globex": ("Globex", {"APP": ("Mobile app", 50), "DATA": ("Data platform", 25)}),
    "initech": ("Initech", {"TPS": ("TPS reports", 40)}),
}
# username → (staff?, {tenant: role})
USERS = {
    "admin": (True, {}),
    "alice": (False, {"acme": "owner", "globex": "member"}),
    "bob": (False, {"acme": "member"}),
    "carol": (False, {"acme": "viewer", "initech": "member"}),
    "dave": (False, {"globex": "owner"}),
    "erin": (False, {"initech": "owner"}),
    "staff": (True, {}),
}
# Staff who may look but not change: tracker.view_tenant only (the admin's read-only pages).
READ_ONLY_STAFF = {"staff": "tracker.view_tenant"}


def demo_logins_create() -> None:
    """The demo logins of USERS with DEMO_PASSWORD; existing ones are left alone."""
    User = get_user_model()
    for username, (staff, _) in USERS.items():
        user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
        if user.email == f"{username}@example.com" and not address_confirmed(user=user):
            address_mark_confirmed(user=user)  # the demo's addresses are confirmed: its e-mails keep working
        if created:
            user.set_password(DEMO_PASSWORD)
            user.is_staff = staff
            user.is_superuser = staff and username not in READ_ONLY_STAFF
            user.save()
            if username in READ_ONLY_STAFF:
                app_label, codename = READ_ONLY_STAFF[username].split(".")
                user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


class Command(BaseCommand):
    help = "Load demo tenants, users, projects and issues; what already exists is left alone."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--seed", type=int, default=7, help="random seed for the issue contents")

    def handle(self, *args: Any, **options: Any) -> None:
        if getattr(settings, "PRODUCTION_SETTINGS", False):
            raise CommandError(
                f"seed_demo refuses production settings ({settings.SETTINGS_MODULE}): it creates logins "
                f"whose password ({DEMO_PASSWORD!r}) is published, staff and superusers among them. "
                "Run it with tracker.settings.local (make run does)."
            )
        rng = random.Random(options["seed"])
        User = get_user_model()
        demo_logins_create()
        for slug, (name, _) in TENANTS.items():
            Tenant.objects.get_or_create(slug=slug, defaults={"name": name})
        for username, (_, roles) in USERS.items():
            for slug, role in roles.items():
                Membership.objects.get_or_create(
                    user=User.objects.get(username=username),
                    tenant=Tenant.objects.get(slug=slug),
                    defaults={"role": role},
                )
        todo = [
            (slug, key, title, count)
            for slug, (_, keys) in TENANTS.items()
            for key, (title, count) in keys.items()
            if issues.project_get(tenant=slug, key=key) is None
        ]
        if not todo:
            self._index_if_missing()
            self.stdout.write("Demo data already loaded.")
        else:
            self._load(rng, todo, options["seed"])
        self._features()

    def _features(self) -> None:
        """Issue 21's features' demo data: one idempotent call each (tracker/demo/<feature>.py), run on every
        seed_demo so that a demo loaded before a feature gets it too; what exists is left alone."""
        for line in demo_labels.labels_seed():  # acme's labels in colour, with descriptions
            self.stdout.write(f"acme: {line}")
        for line in demo_preferences.preferences_seed():  # saved views, notification settings
            self.stdout.write(f"acme: {line}")
        for line in demo_milestones.milestones_seed():  # WEB's milestones v1.2 and v1.3
            self.stdout.write(f"acme: {line}")
        for line in demo_history_diffs.history_diff_seed():  # a description edit with its word diff in WEB-1's history
            self.stdout.write(f"acme: {line}")

    def _load(self, rng: random.Random, todo: list[tuple[str, str, str, int]], seed: int) -> None:
        """The teams' projects, their issues' stories and the orders (a first run)."""
        total = sum(count for *_, count in todo)
        planned: list[demo_orders.PlannedOrder] = []
        with tqdm(total=total, desc="demo issues", unit="issue", disable=None) as bar:
            for slug, key, title, count in todo:
                planned += self._project(rng, slug, key, title, count, bar)
        # all teams' orders oldest first, so the global numbers follow their dates; statuses by age
        made = demo_orders.orders_place(
            planned, rng=random.Random(seed + 1), shards=settings.ORDER_SHARDS, now=utcnow()
        )
        statuses = ", ".join(f"{made[s]} {s}" for s in orders.STATUSES if made[s])
        self.stdout.write(
            self.style.SUCCESS(f"Loaded {len(todo)} projects, {total} issues and {len(planned)} orders ({statuses}).")
        )

    def _index_if_missing(self) -> None:
        """Demo data loaded before the search index existed: build the teams' documents once."""
        for slug in TENANTS:
            if not search_indexing.tenant_has_documents(slug):
                report = search_indexing.rebuild(tenant=slug)
                self.stdout.write(
                    f"{slug}: search index built ({report['issues']} issues, {report['comments']} comments)"
                )

    def _project(
        self, rng: random.Random, slug: str, key: str, title: str, count: int, bar: tqdm
    ) -> list[demo_orders.PlannedOrder]:
        """Write one project's story; its team's orders, planned (placed later, with every team's)."""
        owner = next(u for u, (_, roles) in USERS.items() if roles.get(slug) == "owner")
        people = [u for u, (_, roles) in USERS.items() if roles.get(slug) in ("owner", "member")]
        issues.project_create(
            tenant=slug, key=key, name=title, description=f"Demo project: {title.lower()}.", created_by=owner
        )
        told = story.tell(
            rng, tenant=slug, key=key, count=count, people=people, now=utcnow(), period=settings.EVENTS_PERIOD
        )
        story.write(told, tenant=slug, period=settings.EVENTS_PERIOD, shards=settings.EVENTS_SHARDS)
        search_indexing.rebuild(tenant=slug, project_key=key)  # written in bulk: no change events to feed it
        bar.update(count)
        project_counts_refresh(tenant=slug, key=key)
        # Points for the issues that ended up resolved (the same idempotent awards as the status hook).
        for _ in scores.sync_project(tenant=slug, project_key=key, shards=settings.LEADERBOARD_SHARDS):
            pass
        return demo_orders.orders_plan(rng, customer=slug, placed_by=owner, count=count // 10, now=utcnow())
