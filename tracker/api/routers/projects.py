"""The team's projects: the list the home page shows and one project, with its live issues by status.

Both read the projects' cache as the pages do (``tracker.selectors.projects``, ``PROJECT_CACHE_SECONDS``): a
project created or edited on the site is seen at once (every write invalidates it); its issue counts are those
the counts job last wrote (``counted_at``). One project has an ETag: ``If-None-Match`` with it answers 304.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse
from ninja import Header, Router, Schema
from pydantic import Field

from tracker.api.access import team_access
from tracker.api.etag import etag_of, not_modified, not_modified_response
from tracker.api.openapi import cost
from tracker.api.schemas import as_sent
from tracker.selectors.projects import project_access, project_list

if TYPE_CHECKING:
    from ddbmodels.issues import ProjectItem

router = Router(tags=["projects"])
ETAG = {
    "description": "The project's version and when its counts were taken, quoted: send it as If-None-Match (304).",
    "schema": {"type": "string"},
}


class IssueCounts(Schema):
    """The project's live issues by status, as the counts job last counted them (``counted_at``)."""

    open: int
    in_progress: int
    resolved: int
    closed: int


class ProjectOut(Schema):
    """A project of the team."""

    key: str = Field(description="Its key, the prefix of its issues' references (WEB in WEB-42).", examples=["WEB"])
    name: str
    description: str = Field(description="Empty when none.")
    created_by: str = Field(description="Who created it (username).")
    created_at: datetime
    updated_at: datetime
    issues: IssueCounts
    counted_at: datetime | None = Field(description="When `issues` was counted; null before the first count.")
    importing: bool = Field(description="An import is writing its issues: new issues wait until it ends.")
    version: int = Field(description="Goes up with every edit of the project (not with its issue counts).")


class ProjectList(Schema):
    items: list[ProjectOut] = Field(description="Every project of the team, by key.")


def project_out(project: ProjectItem) -> dict[str, Any]:
    """One project, JSON-ready; reads nothing."""
    counts = project.issue_counts.as_dict() if project.issue_counts is not None else {}
    return as_sent(
        ProjectOut(
            key=project.project_key,
            name=project.name,
            description=project.description or "",
            created_by=project.created_by,
            created_at=project.created_at,
            updated_at=project.updated_at,
            issues=IssueCounts(**{status: int(counts.get(status, 0)) for status in IssueCounts.model_fields}),
            counted_at=project.counted_at,
            importing=bool(project.importing),
            version=int(project.version or 0),
        )
    )


@router.get(
    "/teams/{team}/projects",
    response=ProjectList,
    summary="The team's projects",
    openapi_extra=cost(
        requests="0 when cached (Redis), else 2",
        rcu="0 cached; else 0.5 (index Query) + 0.5 a project (BatchGetItem)",
        note="The home page's cached list (≤ PROJECT_CACHE_SECONDS old; every project write invalidates it).",
    ),
)
def projects_list(request: HttpRequest, team: str) -> dict[str, Any]:
    """Every project of the team, with its live issues by status."""
    membership = team_access(request, team)
    found = sorted(project_list(tenant=membership.tenant), key=lambda project: project.project_key)
    return {"items": [project_out(project) for project in found]}


@router.get(
    "/teams/{team}/projects/{key}",
    response={200: ProjectOut, 304: None},
    summary="One project",
    openapi_extra={
        **cost(
            requests="0 when cached (Redis), else 1",
            rcu="0 cached; else 0.5 (GetItem)",
            note="A 304 costs the same read: it saves bandwidth and rate limit, not DynamoDB.",
        ),
        "responses": {200: {"description": "OK", "headers": {"ETag": ETAG}}, 304: {"headers": {"ETag": ETAG}}},
    },
)
def project_get(
    request: HttpRequest,
    team: str,
    key: str,
    response: HttpResponse,
    if_none_match: str | None = Header(None, alias="If-None-Match"),  # documented; read by not_modified
) -> Any:
    """One project by its key. ETag: its version and when its counts were taken; `If-None-Match` → 304."""
    membership = team_access(request, team)
    project = project_access(tenant=membership.tenant, key=key)
    etag = etag_of(project)
    if not_modified(request, etag):
        return not_modified_response(etag)
    response["ETag"] = etag
    return project_out(project)
