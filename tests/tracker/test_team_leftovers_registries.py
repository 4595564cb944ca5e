"""Guards of offboarding's registries of names (``tracker.services.team_leftovers.names``), issue 20, finding 1.

Offboarding finds a team's cache entries by their namespace (``CACHE_NAMESPACES``: ``<namespace>:<team>…``)
and a team's jobs (their lock, run record, capacity label) by their kind (``TEAM_JOBS``:
``<kind>:<team>…``). A namespace or kind added in code and not in those lists would silently leave the
team's traces after offboarding. So the code is read (its syntax tree, not its words): every key built as
``f"<namespace>:{…}…"`` — and a job command's ``f"{self.job_name}:{…}"`` — anywhere in ``tracker`` and
``ddbmodels`` must be in one of the registries or in ``NOT_A_TEAMS`` below with the reason; and every
registered name must still be built somewhere (a renamed key must not leave a stale entry behind). A key
built in a cache key builder (``…cache_key``) or next to a call of the cache is a cache key: its namespace
must be in ``CACHE_NAMESPACES`` (as a job kind it would not be looked for among the cache's keys).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tracker.services.team_leftovers.names import CACHE_NAMESPACES, TEAM_JOBS

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ("tracker", "ddbmodels")
SKIPPED = ("tracker/services/team_leftovers/", "/migrations/")  # the registries' readers; Django's migrations
NAMESPACE = re.compile(r"[a-z][a-z0-9_.:-]*")

# Built like ``<namespace>:{…}`` and yet no cache entry or job of a team, each with its reason.
NOT_A_TEAMS = {
    "is": "an issue search's words (tracker.issue_query), not a key",
    "label": "an issue search's words (tracker.issue_query), not a key",
    "sort": "an issue search's words (tracker.issue_query), not a key",
    "assignee": "an issue search's words (tracker.issue_query), not a key",
    "milestone": "an issue search's words (tracker.issue_query), not a key",
    "tracker:job-lock": "a job's lock, named by the job's name: TEAM_JOBS decides (redis_places)",
    "tracker:job-lock:shared": "the lock of a job every team shares",
    "pwreset:ip": "a person's password-reset throttle (an address), no team",
    "pwreset:account": "a person's password-reset throttle, no team",
    "address-confirm-sent": "a person's confirmation e-mails this hour, no team",
    "distinct_keys": "names a table, no team (names.py)",
    "restore_event_table": "names an archive, no team (names.py)",
    "rebuild": "the team's search rebuild checkpoint row: deleted with its search documents (remove_tenant)",
    "api-key": "an API request's in-flight marker (a person's Idempotency-Key), gone after 30 s at most",
    "api": "an API operation's page label in the capacity figures (api:<operation>), not a key of a team",
}


def _job_name_of(cls: ast.ClassDef) -> str | None:
    for statement in cls.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "job_name" for t in statement.targets)
            and isinstance(statement.value, ast.Constant)
        ):
            return str(statement.value.value)
    return None


def namespaces_built(source: str) -> set[str]:
    """Every ``<namespace>`` of an f-string ``"<namespace>:{…}…"`` in ``source`` (a job command's
    ``f"{self.job_name}:{…}"`` gives its class's ``job_name``)."""
    tree = ast.parse(source)
    found: set[str] = set()
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    job_names = {id(inner): _job_name_of(cls) for cls in classes for inner in ast.walk(cls)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr) or len(node.values) < 2:
            continue
        first, second = node.values[0], node.values[1]
        if isinstance(first, ast.Constant) and str(first.value).endswith(":"):
            head = str(first.value)[:-1]
            if NAMESPACE.fullmatch(head):
                found.add(head)
        elif (
            isinstance(first, ast.FormattedValue)
            and ast.unparse(first.value) == "self.job_name"
            and isinstance(second, ast.Constant)
            and str(second.value).startswith(":")
            and (name := job_names.get(id(node)))
        ):
            found.add(name)
    return found


def _uses_the_cache(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A key builder (``…cache_key``) or a function that calls Django's cache (``cache.get``, ``cache.add``…)."""
    if "cache_key" in function.name:
        return True
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "cache"
        for node in ast.walk(function)
    )


def cache_namespaces_built(source: str) -> set[str]:
    """The namespaces of keys built in a cache key builder or in a function that calls the cache."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _uses_the_cache(node):
            found |= namespaces_built(ast.unparse(node))
    return found


def code_namespaces(root: Path = ROOT, *, cache_only: bool = False) -> dict[str, list[str]]:
    """Namespace → the files that build keys in it (only cache keys: ``cache_only``)."""
    where: dict[str, list[str]] = {}
    read = cache_namespaces_built if cache_only else namespaces_built
    for top in ROOTS:
        for path in sorted((root / top).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if any(part in f"/{relative}" for part in SKIPPED):
                continue
            for namespace in read(path.read_text()):
                where.setdefault(namespace, []).append(relative)
    return where


def test_every_key_namespace_in_the_code_is_registered_or_said_to_be_no_teams() -> None:
    found = code_namespaces()
    unknown = {ns: files for ns, files in found.items() if ns not in CACHE_NAMESPACES | TEAM_JOBS | NOT_A_TEAMS.keys()}
    assert not unknown, (
        "keys built in a namespace offboarding does not know: add it to CACHE_NAMESPACES or TEAM_JOBS "
        f"(tracker/services/team_leftovers/names.py) or, with the reason, to NOT_A_TEAMS: {unknown}"
    )


@pytest.mark.parametrize("registry", ["CACHE_NAMESPACES", "TEAM_JOBS", "NOT_A_TEAMS"])
def test_every_registered_namespace_is_still_built_somewhere(registry: str) -> None:
    names = {"CACHE_NAMESPACES": CACHE_NAMESPACES, "TEAM_JOBS": TEAM_JOBS, "NOT_A_TEAMS": NOT_A_TEAMS.keys()}[registry]
    stale = set(names) - code_namespaces().keys()
    assert not stale, f"{registry} names what no code builds any more (renamed?): {sorted(stale)}"


def test_a_cache_key_namespace_is_registered_as_one() -> None:
    """A team's cache namespace listed as a job kind would not be found among the cache's keys."""
    found = code_namespaces(cache_only=True)
    assert set(found) - NOT_A_TEAMS.keys() == CACHE_NAMESPACES, found


def test_cache_namespaces_and_team_jobs_do_not_overlap_and_say_no_team_of_their_own() -> None:
    assert not CACHE_NAMESPACES & TEAM_JOBS
    assert not (CACHE_NAMESPACES | TEAM_JOBS) & NOT_A_TEAMS.keys()


def test_the_guard_finds_a_new_namespace_and_a_job_commands_kind() -> None:
    source = """
def new_cache_key(tenant):
    return f"ddb:milestones:{tenant}#{1}"

class Command(JobCommand):
    job_name = "rebalance_team"

    def job_key(self, options):
        return f"{self.job_name}:{options['tenant']}"

TEXT = "no key: {not an f-string}"
"""
    assert namespaces_built(source) == {"ddb:milestones", "rebalance_team"}
    assert cache_namespaces_built(source) == {"ddb:milestones"}
    counted = "def count(team):\n    cache.add(f'team-visits:{team}', 0)\n    return f'not-cached:{team}'\n"
    assert cache_namespaces_built(counted) == {"team-visits", "not-cached"}
