"""The team's resources a program reads: its members, its labels, a project's milestones, the leaderboard.

Each answers through the selectors the team's pages use, so it shows what they show: the team page's members (no
e-mail addresses), the labels page's catalogue (read fresh, as that page does), the milestones page's list with
its progress (cached, as the page's), the leaderboard's top and the caller's own standing. Every role reads them;
another team's URL is a 404, as on the pages.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router, Schema
from pydantic import Field, field_validator

from tracker.api.access import team_access
from tracker.api.etag import etag_of, not_modified, not_modified_response
from tracker.api.openapi import cost
from tracker.api.schemas import as_sent
from tracker.selectors.labels import label_catalogue
from tracker.selectors.leaderboard import TOP_CHOICES, leaderboard_standing, leaderboard_top
from tracker.selectors.milestones import milestone_access, milestone_list
from tracker.selectors.projects import project_access
from tracker.selectors.tenants import team_members

if TYPE_CHECKING:
    from ddbmodels.labels import Label
    from ddbmodels.milestones import MilestoneItem
    from tracker.models import Membership

router = Router(tags=["team"])

Role = Literal["owner", "member", "viewer"]
LabelState = Literal["in_use", "renaming", "removing", "gone"]
MilestoneState = Literal["open", "closing", "closed"]


# ------------------------------------------------------------------- members


class MemberOut(Schema):
    """A person in the team, as the team page lists them."""

    username: str
    full_name: str = Field(description="Their name as their account gives it; empty when none.")
    role: Role = Field(description="owner: everything; member: writes issues, comments, orders; viewer: reads.")
    since: datetime = Field(description="When they joined the team.")


class MemberList(Schema):
    items: list[MemberOut] = Field(description="Owners first, then members, then viewers, each by username.")


def member_out(membership: Membership) -> dict[str, Any]:
    """One member, JSON-ready; reads nothing."""
    user = membership.user
    return as_sent(
        MemberOut(
            username=user.get_username(),
            full_name=user.get_full_name() if hasattr(user, "get_full_name") else "",
            role=membership.role,  # type: ignore[arg-type]  # one of Role's choices, as stored
            since=membership.created_at,
        )
    )


@router.get(
    "/teams/{team}/members",
    response=MemberList,
    summary="The team's members",
    openapi_extra=cost(requests=0, note="Django's database only (one SQL query); no DynamoDB read."),
)
def members_list(request: HttpRequest, team: str) -> dict[str, Any]:
    """Everybody in the team with their role: what the team page lists (no e-mail addresses)."""
    membership = team_access(request, team)
    return {"items": [member_out(m) for m in team_members(tenant=membership.tenant)]}


# ------------------------------------------------------------------- labels


class LabelOut(Schema):
    """A label of the team's catalogue (one catalogue for all its projects)."""

    name: str
    colour: str = Field(description="Its colour in the site's palette.")
    description: str
    state: LabelState = Field(
        description="in_use; renaming or removing while its issues are being moved off it (the name is refused "
        "meanwhile); gone once renamed or deleted (kept so lists filtered by it can say so)."
    )
    renamed_to: str | None = Field(description="The label it was renamed to (gone or renaming); null otherwise.")
    version: int = Field(description="Goes up by one with every change of the label.")
    updated_at: datetime | None


class LabelList(Schema):
    items: list[LabelOut] = Field(description="Every label the team has used, by name, gone ones included.")


def label_out(label: Label) -> dict[str, Any]:
    """One label, JSON-ready; reads nothing."""
    return as_sent(
        LabelOut(
            name=label.name,
            colour=label.colour,
            description=label.description,
            state=label.state or "in_use",  # type: ignore[arg-type]  # "" is in use, as stored
            renamed_to=label.renamed_to or None,
            version=int(label.version),
            updated_at=datetime.fromisoformat(label.updated_at) if label.updated_at else None,
        )
    )


@router.get(
    "/teams/{team}/labels",
    response=LabelList,
    summary="The team's labels",
    openapi_extra=cost(
        requests=1,
        rcu="0.5 per 4 KB of the catalogue (≈ 1.5 for 100 labels)",
        note="One Query of the team's label registry, read fresh as the labels page does.",
    ),
)
def labels_list(request: HttpRequest, team: str) -> dict[str, Any]:
    """The team's label catalogue as the labels page shows it: a label created a moment ago is listed."""
    membership = team_access(request, team)
    return {"items": [label_out(label) for label in label_catalogue(tenant=membership.tenant, fresh=True)]}


# ------------------------------------------------------------------- milestones


class MilestoneCounts(Schema):
    """The milestone's live issues by status, as the project's counts refresh last left them."""

    open: int
    in_progress: int
    resolved: int
    closed: int


class MilestoneOut(Schema):
    """A milestone of a project, with its progress."""

    id: str
    name: str
    state: MilestoneState = Field(description="closing: a close is moving its open issues; nothing joins it then.")
    due: str | None = Field(description="Its due date (YYYY-MM-DD); null when none.")
    description: str
    issues: MilestoneCounts
    created_by: str
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    version: int = Field(description="Goes up with every edit, close or reopen (not with its issue counts).")


class MilestoneList(Schema):
    items: list[MilestoneOut]


def milestone_out(milestone: MilestoneItem) -> dict[str, Any]:
    """One milestone, JSON-ready; reads nothing."""
    return as_sent(
        MilestoneOut(
            id=milestone.milestone_id,
            name=milestone.name,
            state=milestone.state,  # type: ignore[arg-type]  # one of MilestoneState, as stored
            due=milestone.due or None,
            description=milestone.description or "",
            issues=MilestoneCounts(**milestone.counts()),
            created_by=milestone.created_by,
            created_at=milestone.created_at,
            updated_at=milestone.updated_at,
            closed_at=milestone.closed_at,
            version=int(milestone.version or 0),
        )
    )


@router.get(
    "/teams/{team}/projects/{key}/milestones",
    response=MilestoneList,
    summary="A project's milestones",
    openapi_extra=cost(
        requests="0 when cached (Redis), else 1–2",
        rcu="0 cached; else ≈ 0.5 (one Query) + 0.5 for a project not cached",
        note="The milestones page's cached list (≤ PROJECT_CACHE_SECONDS old), with the counts as last refreshed.",
    ),
)
def milestones_list(request: HttpRequest, team: str, key: str) -> dict[str, Any]:
    """The project's milestones with their progress, as its milestones page lists them."""
    membership = team_access(request, team)
    project = project_access(tenant=membership.tenant, key=key)
    found = milestone_list(tenant=project.tenant, project_key=project.project_key)
    return {"items": [milestone_out(m) for m in found]}


@router.get(
    "/teams/{team}/projects/{key}/milestones/{milestone_id}",
    response={200: MilestoneOut, 304: None},
    summary="One milestone",
    openapi_extra=cost(
        requests="1 (2 with a project not cached)",
        rcu="1 (GetItem, consistent) [+ 0.5 the project]",
        note="Read as stored now (its ETag for If-Match); a 304 (If-None-Match) costs the same read.",
    ),
)
def milestone_get(request: HttpRequest, team: str, key: str, milestone_id: str, response: HttpResponse) -> Any:
    """One milestone of the project as stored now, with its `ETag` (its version, and its counts as last refreshed)."""
    membership = team_access(request, team)
    project = project_access(tenant=membership.tenant, key=key)
    milestone = milestone_access(tenant=project.tenant, project_key=project.project_key, milestone_id=milestone_id)
    tag = etag_of(milestone)
    if not_modified(request, tag):
        return not_modified_response(tag)
    response["ETag"] = tag
    return milestone_out(milestone)


# ------------------------------------------------------------------- leaderboard


class Ranked(Schema):
    rank: int = Field(description="Competition ranking: 1, 2, 2, 4.")
    username: str
    score: int


class Standing(Schema):
    """The calling token's person on the board."""

    username: str
    score: int
    rank: int | None = Field(description="Null before their first point.")
    exact: bool = Field(description="False past the count cap: then `rank` is a lower bound.")
    on_board: bool = Field(description="In the top list of this answer.")


class Leaderboard(Schema):
    k: int = Field(description="How many the top lists at most: 10 or 50.")
    top: list[Ranked]
    you: Standing


class TopQuery(Schema):
    # An int checked against TOP_CHOICES (a query string is text: Literal[10, 50] would refuse "50").
    k: int = Field(10, description="How many to list: 10 or 50.", json_schema_extra={"enum": list(TOP_CHOICES)})

    @field_validator("k")
    @classmethod
    def _a_top(cls, k: int) -> int:
        if k not in TOP_CHOICES:
            raise ValueError(f"k is one of {', '.join(map(str, TOP_CHOICES))}.")
        return k


@router.get(
    "/teams/{team}/leaderboard",
    response=Leaderboard,
    summary="The team's leaderboard",
    openapi_extra=cost(
        requests="0 when cached and you are on the board; else N (shards) + 1 + N",
        rcu="top: 0 cached, else N × 0.5; your standing off the board: 0.5 + N × 0.5 per 4 KB counted",
        note="The top is cached (LEADERBOARD_CACHE_SECONDS); your standing is never cached.",
    ),
)
def leaderboard_get(request: HttpRequest, team: str, query: Query[TopQuery]) -> dict[str, Any]:
    """The team's top 10 or 50 and where the token's person stands, as the leaderboard page shows them."""
    membership = team_access(request, team)
    slug, username = membership.tenant.slug, membership.user.get_username()
    top = leaderboard_top(tenant=slug, k=query.k)
    standing = leaderboard_standing(tenant=slug, username=username, top=top)
    return {
        "k": query.k,
        "top": [{"rank": row.rank, "username": row.member, "score": row.score} for row in top],
        "you": {
            "username": username,
            "score": standing.score,
            "rank": standing.rank,
            "exact": standing.exact,
            "on_board": standing.on_board,
        },
    }
