"""The run's data before the load: Django's tables, the DynamoDB tables, teams, people, projects, a few issues.

Runs in bench/load.py's own process with Django configured from the run's environment (the web
server and the worker read the same SQLite file and tables). Every person is a member of every
team, so a virtual user can act in whichever team the skew picks; one staff login starts the job.
The issues a project starts with are bulk-written (``issues.issues_put_many``, BatchWriteItem of each
issue and its ``labels`` entries), numbered 1..N, so the issues the load creates continue at N + 1;
then each team's search documents are built (``search_index rebuild``, as after an import).
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from datetime import timedelta

PROJECTS = ("WEB", "API", "OPS")
WORDS = ("checkout", "login", "search", "export", "billing", "upload", "report", "invoice", "sync", "kerberos")
THINGS = ("Safari", "mobile", "the dashboard", "large files", "slow networks", "the API", "night jobs")
VERBS = ("fails on", "is slow on", "breaks on", "times out on", "looks wrong on")
PRIORITIES = ("low", "medium", "high", "urgent")
THROTTLED = "zz-throttled"  # in a title: the run's throttle answers every write of that create "throttled"


@dataclass
class Layout:
    """Who and what the load works with."""

    teams: list[str]  # slugs, by rank: teams[0] is the hottest
    projects: dict[str, list[str]]  # slug → project keys
    seeded: dict[tuple[str, str], int]  # (slug, key) → issues it started with (numbers 1..n)
    users: list[str]
    staff: str
    password: str
    hot: tuple[str, str] = ("", "")  # the project every hot writer creates issues in


def team_slug(rank: int) -> str:
    return f"load-{rank:02d}"


def title(rng: random.Random) -> str:
    return f"{rng.choice(WORDS).capitalize()} {rng.choice(VERBS)} {rng.choice(THINGS)}"


LABELS = ("bug", "ui", "backend", "docs", "performance", "security", "infra", "feature")
UNLABELLED = 0.5  # half the issues a team files carry no label


def labels_of(rng: random.Random) -> str:
    """What a person types in the labels field: nothing half the time, else one or two of a team's eight labels."""
    if rng.random() < UNLABELLED:
        return ""
    return ", ".join(rng.sample(LABELS, rng.choice((1, 1, 2))))


def prepare(*, teams: int, users: int, seed_issues: int, password: str, rng: random.Random) -> Layout:
    """Create the tables, the teams, people and projects; bulk-write each project's first issues (after ``migrate``)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command

    from ddbmodels import issues
    from ddbmodels.core import tables
    from ddbmodels.core.keys import utcnow
    from ddbmodels.issues import IssueItem, collection_key
    from ddbmodels.issues.model import PROJECT_SK
    from tracker.models import Membership, Tenant
    from tracker.search import indexing
    from tracker.services.projects import project_counts_refresh

    tables.create_all()
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("rotate_event_tables", verbosity=0, **quiet)  # this period's events table (issue pages read it)

    User = get_user_model()
    hashed = make_password(password)  # one hash for everybody: hashing is slow on purpose
    people = [f"user{n:02d}" for n in range(1, users + 1)]
    User.objects.bulk_create([User(username=name, password=hashed) for name in people])
    staff = "operator"
    User.objects.create(username=staff, password=hashed, is_staff=True, is_superuser=True)
    slugs = [team_slug(rank) for rank in range(1, teams + 1)]
    made = Tenant.objects.bulk_create([Tenant(slug=slug, name=f"Team {rank}") for rank, slug in enumerate(slugs, 1)])
    accounts = list(User.objects.filter(username__in=people))
    Membership.objects.bulk_create(
        [Membership(user=user, tenant=tenant, role="member") for tenant in made for user in accounts]
    )

    now = utcnow()
    seeded: dict[tuple[str, str], int] = {}
    batch: list[IssueItem] = []
    for slug in slugs:
        for key in PROJECTS:
            issues.project_create(tenant=slug, key=key, name=f"{key} of {slug}", created_by=people[0])
            seeded[(slug, key)] = seed_issues
            for number in range(PROJECT_SK + 1, seed_issues + 1):
                when = now - timedelta(hours=seed_issues - number + 1)
                batch.append(
                    IssueItem(
                        pk=collection_key(slug, key),
                        number=number,
                        title=title(rng),
                        status=rng.choice(("open", "open", "in_progress", "closed")),
                        priority=rng.choice(PRIORITIES),
                        assignee=rng.choice([*people[:4], None]),
                        reporter=rng.choice(people),
                        labels=set(labels_of(rng).split(", ")) - {""} or None,
                        created_at=when,
                        updated_at=when,
                    )
                )
    issues.issues_put_many(batch)
    for slug in slugs:
        for key in PROJECTS:
            project_counts_refresh(tenant=slug, key=key)
        indexing.rebuild(tenant=slug)  # a bulk load records no changes: its search documents, as an import does
    return Layout(
        teams=slugs,
        projects={slug: list(PROJECTS) for slug in slugs},
        seeded=seeded,
        users=people,
        staff=staff,
        password=password,
        hot=(slugs[0], PROJECTS[0]),
    )
