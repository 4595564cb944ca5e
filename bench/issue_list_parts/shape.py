"""The team ``bench/issue_lists.py`` loads: its issues' statuses, assignees, labels and titles.

About 1 % open (a dozen at 1,000), 2 % in progress, 3 % resolved, the rest closed, scattered over
the history; assignees from 8 people (Zipf: the first has about a third), 15 % unassigned; labels
from 6 (``bug`` on 5 %); titles from a vocabulary, ``checkout`` in about 1 in 10, ``kerberos`` in
``RARE_TITLES`` at every size. Seeded: the same arguments give the same team.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ddbmodels.issues import IssueItem, collection_key

STATUS_SHARE = {"open": 0.012, "in_progress": 0.02, "resolved": 0.03}  # the rest closed
PEOPLE = ("ana", "ben", "chen", "dara", "eli", "femi", "gus", "hana")  # Zipf-ish: weight 1/rank
UNASSIGNED = 0.15
LABEL_SHARE = {"bug": 0.05, "feature": 0.08, "backend": 0.06, "ux": 0.04, "docs": 0.03, "perf": 0.02}
AREAS = (
    "Checkout",
    "Login",
    "Search results",
    "Invoice export",
    "Profile page",
    "Dashboard",
    "Notifications",
    "Password reset",
    "File upload",
    "Billing settings",
)
SYMPTOMS = (
    "fails",
    "crashes",
    "is slow",
    "times out",
    "shows the wrong total",
    "hangs",
    "loses changes",
    "ignores the language",
    "breaks the layout",
)
CONTEXTS = (
    "on Safari",
    "on Android",
    "after the update",
    "for new users",
    "with large files",
    "in dark mode",
    "behind a proxy",
    "on a slow network",
    "",
)
RARE = "kerberos"
RARE_TITLES = 3  # at every size
COMMON_PAIR = "checkout safari"  # two common words (the search engine's now: bench/search.py)
API_SHARE = 10  # API has a tenth of WEB's issues
START = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Spec:
    """One issue as loaded: what the lists are checked against."""

    project: str
    number: int
    status: str
    assignee: str | None
    labels: frozenset[str]
    title: str
    created: datetime
    updated: datetime
    milestone: str | None = None  # WEB's milestone (``MILESTONE``): about half its open work, 5 % of the rest

    @property
    def ref(self) -> str:
        return f"{self.project}-{self.number}"


@dataclass
class Team:
    """A team of one size: its slug, the issues loaded (by project), their item sizes (WEB, by number)."""

    size: int
    slug: str
    specs: dict[str, list[Spec]]
    sizes: dict[int, int] = field(default_factory=dict)


def pick(rng: random.Random, count: int, population: int, taken: set[int]) -> set[int]:
    chosen: set[int] = set()
    while len(chosen) < count:
        n = rng.randint(1, population)
        if n not in taken and n not in chosen:
            chosen.add(n)
    return chosen


def project_specs(rng: random.Random, project: str, total: int, offset: int, rare: int) -> list[Spec]:
    """``total`` issues, statuses in their shares scattered over the history, ``rare`` titles with the rare word."""
    status: dict[int, str] = {}
    for name, share in STATUS_SHARE.items():
        for n in pick(rng, max(1, round(total * share)), total, set(status)):
            status[n] = name
    rare_numbers = pick(rng, rare, total, set()) if rare else set()
    weights = [1 / rank for rank in range(1, len(PEOPLE) + 1)]
    specs = []
    for n in range(1, total + 1):
        if n in rare_numbers:
            title = f"Kerberos ticket renewal {rng.choice(SYMPTOMS)} {rng.choice(CONTEXTS)}"
        else:
            title = f"{rng.choice(AREAS)} {rng.choice(SYMPTOMS)} {rng.choice(CONTEXTS)}"
        created = START + timedelta(minutes=n, microseconds=2 * n + offset)
        updated = created + timedelta(seconds=rng.randint(0, 60 * 86400))
        specs.append(
            Spec(
                project=project,
                number=n,
                status=status.get(n, "closed"),
                assignee=None if rng.random() < UNASSIGNED else rng.choices(PEOPLE, weights)[0],
                labels=frozenset(label for label, share in LABEL_SHARE.items() if rng.random() < share),
                title=title.strip(),
                created=created,
                updated=updated,
                milestone=_milestone(rng, project, status.get(n, "closed")),
            )
        )
    return specs


MILESTONE = "01JDBENCH0000000000000000V"  # a milestone id (26 Crockford characters), WEB's only


def _milestone(rng: random.Random, project: str, status: str) -> str | None:
    """WEB's issues in the milestone: about half of the open and in-progress ones, 5 % of the others."""
    if project != "WEB":
        return None
    return MILESTONE if rng.random() < (0.5 if status in ("open", "in_progress") else 0.05) else None


def issue_of(slug: str, spec: Spec) -> IssueItem:
    return IssueItem(
        pk=collection_key(slug, spec.project),
        number=spec.number,
        title=spec.title,
        status=spec.status,
        priority="medium",
        assignee=spec.assignee,
        reporter=PEOPLE[spec.number % len(PEOPLE)],
        labels=set(spec.labels) or None,
        milestone=spec.milestone,
        created_at=spec.created,
        updated_at=spec.updated,
    )


def indexed(item: IssueItem) -> int:
    """List-index entries a live issue has (each < 1 KB: 1 WCU): project_status twice, team_status, assignee_status."""
    return sum(2 if name == "list_project_status" else 1 for name, value in item.list_keys().items() if value)
