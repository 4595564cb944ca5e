"""The check's world before it calls anything: two teams with their people and projects, one project of many issues.

Runs in bench/api_check.py's own process with Django configured from the run's environment (the web server and
the worker read the same SQLite file and tables). The demo's names: team ``acme`` (alice owner, bob member, carol
viewer) with projects WEB (``issues`` open issues, bulk-written as an import would) and API (where the check
creates), team ``globex`` (dave owner) with APP. The tokens come from the command the issue names
(``manage.py create_api_token``), run as a separate process; its last line is the token.
"""

from __future__ import annotations

import io
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = {
    "alice": ("acme", "owner"),
    "bob": ("acme", "member"),
    "carol": ("acme", "viewer"),
    "dave": ("globex", "owner"),
}
PROJECTS = {("acme", "WEB"): "Website", ("acme", "API"): "Public API", ("globex", "APP"): "Mobile app"}
BIG = ("acme", "WEB")


@dataclass(frozen=True)
class Tokens:
    owner: str  # alice, acme, admin scope (webhooks)
    member: str  # bob, acme, write
    viewer: str  # carol, acme, read
    other_team: str  # dave, globex, write


def prepare(*, issues: int, password: str) -> None:
    """Tables, people, teams, projects; ``issues`` open issues in acme/WEB (numbers 1..issues, newest last); a
    milestone in acme/API."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from ddbmodels import issues as ddb_issues
    from ddbmodels.core import tables
    from ddbmodels.core.keys import utcnow
    from ddbmodels.issues import IssueItem, collection_key
    from ddbmodels.milestones import milestone_create
    from tracker.models import Membership, Tenant
    from tracker.services.projects import project_counts_refresh

    tables.create_all()
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("rotate_event_tables", verbosity=0, **quiet)  # this period's events table (histories, webhooks)
    teams = {slug: Tenant.objects.create(slug=slug, name=slug.capitalize()) for slug in ("acme", "globex")}
    User = get_user_model()
    for name, (slug, role) in PEOPLE.items():
        user = User.objects.create_user(name, password=password)
        Membership.objects.create(user=user, tenant=teams[slug], role=role)
    for (slug, key), name in PROJECTS.items():
        ddb_issues.project_create(tenant=slug, key=key, name=name, created_by="alice" if slug == "acme" else "dave")
    milestone_create(tenant="acme", project_key="API", name="1.0", due=None, created_by="alice")  # one to read
    now = utcnow()
    ddb_issues.issues_put_many(
        IssueItem(
            pk=collection_key(*BIG),
            number=n,
            title=f"Seeded issue {n}",
            status="open",
            priority=("low", "medium", "high", "urgent")[n % 4],
            reporter="bob",
            assignee="bob" if n % 7 == 0 else None,
            created_at=now - timedelta(minutes=issues - n),
            updated_at=now - timedelta(minutes=issues - n),
        )
        for n in range(1, issues + 1)
    )
    for slug, key in PROJECTS:
        project_counts_refresh(tenant=slug, key=key)


def token(env: dict[str, str], username: str, team: str, scope: str) -> str:
    """A token made by ``manage.py create_api_token`` (its last line), as an operator would make one."""
    command = [sys.executable, "manage.py", "create_api_token", username, "--team", team, "--scope", scope]
    command += ["--name", "api_check"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"create_api_token {username}: {done.stderr.strip()[-500:]}")
    return done.stdout.strip().splitlines()[-1].strip()


def tokens(env: dict[str, str]) -> Tokens:
    """The four tokens, their commands run at once (each starts Django: seconds apiece on a busy machine)."""
    wanted = {
        "owner": ("alice", "acme", "admin"),
        "member": ("bob", "acme", "write"),
        "viewer": ("carol", "acme", "read"),
        "other_team": ("dave", "globex", "write"),
    }
    with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
        made = {role: pool.submit(token, env, *args) for role, args in wanted.items()}
        return Tokens(**{role: future.result() for role, future in made.items()})
