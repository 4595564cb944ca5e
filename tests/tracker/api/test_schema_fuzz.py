"""A property-based run of the API's own OpenAPI document (schemathesis): no 5xx, every answer as documented.

Every operation of ``/api/v1/openapi.json`` is called in-process (WSGI) with an owner's ``admin`` token of a fresh
team, its ``team`` (and ``key``) path parameters pointed at that team's data so the calls reach the operations'
code, not only the 404 of another team. schemathesis' default checks run (no server error, status codes, content
types, headers and bodies as documented, bad input refused, auth not ignored, methods refused…) but one:
``positive_data_acceptance`` wants every schema-valid request accepted, and a schema cannot say that a cursor is
signed (a made-up one is a 400) or that a filter names a label or milestone that exists. With a
fixed seed (``derandomize``), 5 examples an operation and no example database. Hypothesis keeps its files in a
temporary directory; webhook URLs are never resolved (``tracker.webhook_http.resolve`` refuses every name), so no
DNS query leaves the suite. The run fails itself past ``BUDGET_SECONDS`` in all.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from ddbmodels.core.errors import InvalidInput
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker import webhook_http

os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="tracker-hypothesis-"))

pytestmark = pytest.mark.django_db
BUDGET_SECONDS = 120.0
_started: list[float] = []


@pytest.fixture
def api_schema() -> Any:
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """No webhook URL is looked up: every name is refused as unknown (a 400 on its field), without a resolver.
    (An accepted one would queue deliveries that a later test's worker would try to send.)"""

    def refuse(host: str, port: int) -> list[str]:
        raise InvalidInput(f"The name {host} could not be found.", field="url")

    monkeypatch.setattr(webhook_http, "resolve", refuse)


@pytest.fixture
def owner_token(world: World, api_client: ApiClientFactory, no_dns: None) -> str:
    return api_client(world, role="owner", scope="admin").secret


@schema.parametrize()
@hypothesis_settings(
    max_examples=5, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
def test_every_operation_answers_as_its_document_says(case: Any, world: World, owner_token: str) -> None:
    if not _started:
        _started.append(time.monotonic())
    if case.path_parameters:
        if "team" in case.path_parameters:
            case.path_parameters["team"] = world.slug
        if "key" in case.path_parameters:
            case.path_parameters["key"] = world.project_key
    case.call_and_validate(
        headers={"Authorization": f"Bearer {owner_token}"}, excluded_checks=[positive_data_acceptance]
    )
    spent = time.monotonic() - _started[0]
    assert spent <= BUDGET_SECONDS, f"the schema run took {spent:.0f} s, over its {BUDGET_SECONDS:.0f} s budget"
