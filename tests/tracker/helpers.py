"""Helpers for the web tests: DynamoDB state snapshots, issue factories, HTML scraping."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import Permission, User
from django.contrib.messages import get_messages
from django.http import HttpResponse
from django.test import Client

from ddbmodels import issues
from ddbmodels import issues as ddb_projects
from ddbmodels.core import capacity
from ddbmodels.issues import PROJECT_SK, CollectionItem, IssueItem, collection_key
from tests.tracker.conftest import World

NOT_FOUND_TEXT = "There is nothing here, or it is not yours to see."
_CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def ddb_state(tenant: str) -> dict[str, list[dict[str, Any]]]:
    """Every item of every project of ``tenant``, read consistently: the whole tenant in DynamoDB."""
    return {
        key: [
            item.to_dynamodb_dict()
            for item in CollectionItem.query(
                collection_key(tenant, key),
                range_key_condition=CollectionItem.number >= PROJECT_SK,
                consistent_read=True,
            )
        ]
        for key in sorted(ddb_projects.project_keys(tenant=tenant))
    }


@contextmanager
def unchanged(*worlds: World, failed_writes: int = 0) -> Iterator[capacity.CapacityMeter]:
    """Assert that the block leaves every world's DynamoDB data as it was.

    Also asserts that the block attempted no write at all, except ``failed_writes`` conditional
    writes that DynamoDB refused (a duplicate key is found out by a refused PutItem).
    """
    before = [ddb_state(w.slug) for w in worlds]
    numbers_before = [issues.issue_numbers(tenant=w.slug, project_key=w.project_key) for w in worlds]
    with capacity.measure() as meter:
        yield meter
    writes = sum(n for op, n in meter.by_operation.items() if op in capacity.WRITE_OPERATIONS)
    assert writes == failed_writes, f"writes attempted: {dict(meter.by_operation)}"
    assert meter.conditional_failures == failed_writes
    assert [issues.issue_numbers(tenant=w.slug, project_key=w.project_key) for w in worlds] == numbers_before
    assert [ddb_state(w.slug) for w in worlds] == before


def new_issue(world: World, title: str = "An issue", **fields: Any) -> IssueItem:
    """Create an issue straight through ddbmodels (fast; no request)."""
    fields.setdefault("reporter", world.member.username)
    return issues.issue_create(tenant=world.slug, project_key=world.project_key, title=title, **fields).item


def load(world: World, number: int) -> IssueItem | None:
    """The issue as DynamoDB has it now (consistent read), tombstones included."""
    return issues.issue_get(tenant=world.slug, project_key=world.project_key, number=number, consistent=True)


def version_of(world: World, number: int) -> int:
    issue = load(world, number)
    assert issue is not None
    return int(issue.version)


def text(response: HttpResponse) -> str:
    return response.content.decode()


def assert_form_error(response: HttpResponse, field: str, error: str) -> None:
    """The form shown again (200), ``field`` in error, and ``error`` on the page."""
    assert response.status_code == 200
    assert response.context["form"].errors[field]  # type: ignore[attr-defined]
    assert error in text(response)


def without_csrf(page: str) -> str:
    """The page with its (per-render random) CSRF tokens blanked, so two renders compare equal."""
    return _CSRF_INPUT.sub('name="csrfmiddlewaretoken" value=""', page)


def references(response: HttpResponse, project_key: str = "WEB") -> list[int]:
    """Issue numbers linked from a list page, in display order."""
    return [int(n) for n in re.findall(rf">{project_key}-(\d+)</a>", text(response))]


def pager_link(response: HttpResponse, rel: str) -> str | None:
    """The ``href`` of the pager link ``rel`` ("next" or "prev"), unescaped, or None."""
    match = re.search(rf'<a rel="{rel}" href="([^"]+)"', text(response))
    return html.unescape(match.group(1)) if match else None


def hidden_value(response: HttpResponse, name: str) -> str:
    match = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', text(response))
    assert match, f"no hidden input {name!r} in the page"
    return match.group(1)


def flash(response: HttpResponse) -> list[str]:
    """Messages queued by the request (read without rendering the next page)."""
    return [str(m) for m in get_messages(response.wsgi_request)]


def wait_for_job(client: Client, task_id: str, timeout: float = 120) -> dict[str, Any]:
    """Poll the admin's status.json of a job, as its page does, until it is ready (or the timeout)."""
    deadline = time.monotonic() + timeout
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = client.get(f"/admin/ddb/jobs/{task_id}/status.json").json()
        if status["ready"]:
            break
        time.sleep(0.5)
    return status


STAFF_WRITES = ("tracker.change_tenant", "audit.edit_raw_items", "audit.run_destructive_jobs")


def staff_user(username: str, *, may_change: bool = False, perms: tuple[str, ...] = ()) -> User:
    """A staff user who may see DynamoDB data (tracker.view_tenant), with ``perms`` ("app.codename") too.

    ``may_change`` adds every staff write: tracker.change_tenant, raw item edits and jobs that write or delete.
    """
    user = User.objects.create_user(username, password="pw-for-tests", is_staff=True)
    for permission in ("tracker.view_tenant", *(STAFF_WRITES if may_change else ()), *perms):
        app_label, codename = permission.split(".")
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label=app_label))
    return user


def staff_client(username: str, *, may_change: bool = False, perms: tuple[str, ...] = ()) -> Client:
    """A client logged in as a new ``staff_user``."""
    client = Client()
    client.force_login(staff_user(username, may_change=may_change, perms=perms))
    return client
