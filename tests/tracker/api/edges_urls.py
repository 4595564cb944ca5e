"""A URLconf for the API's edge tests: a small ``TrackerAPI`` at ``/api/edges/`` beside the site's.

Its operations exercise what ``ApiMiddleware``, ``tracker.api.ratelimit`` and ``tracker.api.problems`` do for every
operation, independently of the areas' routers: a project read (one DynamoDB GetItem), an ETag with 304, a body that
must validate, an exception nobody handles, a 403.
"""

from __future__ import annotations

from typing import Any

import pydantic
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import path, re_path
from ninja import Router, Status

from ddbmodels.issues import project_get
from tracker.api import api as site_api
from tracker.api.access import team_access
from tracker.api.auth import TokenAuth
from tracker.api.openapi import TrackerAPI, cost
from tracker.api.problems import not_found

edges = TrackerAPI(title="edges", version="1", urls_namespace="api-edges", auth=TokenAuth(), docs_url=None)
router = Router()


class ThingIn(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    title: str = pydantic.Field(max_length=5)
    labels: list[str] = []


@router.get("/teams/{team}/projects/{key}", openapi_extra=cost(requests=1, rcu=0.5))
def project_read(request: HttpRequest, team: str, key: str, response: HttpResponse) -> Any:
    membership = team_access(request, team)
    project = project_get(tenant=membership.tenant.slug, key=key)
    etag = f'"{project.version if project else 0}"'
    if request.headers.get("If-None-Match") == etag:
        answer = HttpResponseNotModified()
        answer["ETag"] = etag
        return answer
    response["ETag"] = etag
    return {"key": key, "found": project is not None}


@router.post("/things", response={201: dict}, openapi_extra=cost(requests=0))
def thing_create(request: HttpRequest, payload: ThingIn) -> Status:
    return Status(201, payload.model_dump())


@router.get("/boom", openapi_extra=cost(requests=0))
def boom(request: HttpRequest) -> None:
    raise KeyError("secret internals")


@router.get("/forbidden", openapi_extra=cost(requests=0))
def forbidden(request: HttpRequest) -> None:
    raise PermissionDenied("This token may only read.")


@router.get("/public", auth=None, openapi_extra=cost(requests=0))
def public(request: HttpRequest) -> dict[str, bool]:
    return {"ok": True}


edges.add_router("", router)

urlpatterns = [
    path("api/edges/", edges.urls),
    path("api/v1/", site_api.urls),
    re_path(r"^api/", not_found),
    path("plain/<int:n>/", lambda request, n: HttpResponse("plain")),
    path("admin/", admin.site.urls),  # the Capacity page
]


def raising_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a plain view under /api/ failed")


urlpatterns.insert(0, path("api/raw/", raising_view))
