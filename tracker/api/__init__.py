"""The REST API at ``/api/v1/`` (django-ninja): JSON over the same selectors and services the pages use.

``api`` is the one ``NinjaAPI``: its OpenAPI 3.1 document at ``/api/v1/openapi.json``, its docs page at
``/api/v1/docs`` (Swagger UI from ninja's bundled static files, no CDN, no inline script: the CSP stays), every error
a problem document (``tracker.api.problems``). Routers per area are added here as issue 22 builds them.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from tracker.api import problems
from tracker.api.auth import TokenAuth
from tracker.api.openapi import TrackerAPI, TrackerSwagger

api = TrackerAPI(  # NinjaAPI whose document states problems, headers and DynamoDB costs
    title="Tracker API",
    version="1",
    description="Tracker's REST API: projects, issues, comments and the team's resources, as the pages show them.",
    urls_namespace="api-v1",
    openapi_url="/openapi.json",
    docs=TrackerSwagger(settings={"showExtensions": True}),  # each operation's x-dynamodb-cost on the docs page
    docs_url="/docs",
    auth=TokenAuth(),  # every operation needs a Bearer token unless it says auth=None
)


def _handle(request: HttpRequest, error: Exception | type[Exception]) -> HttpResponse:
    """Every error an operation raises, as a problem document (ninja may hand over the class instead of an instance)."""
    return problems.handle(request, error if isinstance(error, Exception) else error())


api.add_exception_handler(Exception, _handle)

from tracker.api.routers import tokens  # noqa: E402  # A: who is calling

api.add_router("", tokens.router)  # A: the calling token (GET /token)

from tracker.api.routers import issue_reads, projects  # noqa: E402  # the routers need `api`'s package first

api.add_router("", projects.router)  # D: the team's projects
api.add_router("", issue_reads.router)  # D: issue lists, one issue, its history

# C: creating (exactly once) and changing issues, on the issues' router (one path, one router: GET and POST share it);
# E: the team's resources
from tracker.api.routers import (  # noqa: E402
    comments,
    inbox,
    issue_writes,  # noqa: F401
    orders,
    team,
)

api.add_router("", comments.router)  # E: an issue's comments
api.add_router("", team.router)  # E: members, labels, milestones, leaderboard
api.add_router("", orders.router)  # E: the team's orders
api.add_router("", inbox.router)  # E: the token's person's inbox

from tracker.api.routers import webhooks  # noqa: E402  # F: the team's webhooks

api.add_router("", webhooks.router)  # F: endpoints, their delivery log, redeliver
