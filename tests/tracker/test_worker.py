"""A real Celery worker (a separate process) on the session's Redis and DynamoDB Local."""

from __future__ import annotations

import subprocess
import time

import pytest

from ddbmodels import issues as ddb_projects
from tests.tracker.conftest import World


@pytest.mark.slow
def test_issue_writes_refresh_the_project_counts_through_the_worker(
    world: World, celery_worker: subprocess.Popen[bytes]
) -> None:
    client = world.client_for(world.member)
    for title in ("one", "two", "three"):
        assert client.post(world.project_url("new/"), {"title": title, "priority": "low"}).status_code == 302
    issue_2 = client.get(world.project_url("2/"))
    version = issue_2.context["issue"].version
    client.post(world.project_url("2/status/"), {"to": "resolved", "version": version})

    deadline = time.monotonic() + 60
    counts: dict[str, int] = {}
    while time.monotonic() < deadline:
        project = ddb_projects.project_get(tenant=world.slug, key=world.project_key)
        assert project is not None
        counts = project.issue_counts.as_dict() if project.issue_counts else {}
        if counts.get("open") == 2 and counts.get("resolved") == 1:
            break
        assert celery_worker.poll() is None, "the worker died"
        time.sleep(0.5)
    assert counts == {"open": 2, "in_progress": 0, "resolved": 1, "closed": 0}
