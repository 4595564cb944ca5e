"""Offboarding takes the team's import records and load checkpoints with it, so the slug starts clean.

End to end on DynamoDB Local: a team imports through ``manage.py import_issues`` and through the
web job; its job items carry the team; ``manage.py offboard_tenant`` archives and deletes them
(its own job item stays); a team re-created under the same slug that imports the same exports
gets every issue (before, the old checkpoint said "already imported" and the project stayed empty).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import issues as ddb_issues
from ddbmodels import jobs
from ddbmodels.attachments import new_attachment_id
from ddbmodels.patterns import item_archive
from tests.tracker.conftest import World
from tests.tracker.import_helpers import expected_numbers, export_bytes, imports_storage, stored_files
from tracker import tasks
from tracker.models import Membership, RetiredSlug, Tenant, slug_unavailable
from tracker.selectors.imports import import_get
from tracker.services import imports as import_services
from tracker.storage import DjangoArchiveStore

pytestmark = pytest.mark.ddblocal
COUNT = 24  # 18 issues (every 4th entry is a pull request)


@pytest.fixture
def storages(settings: SettingsWrapper, media: Path, tmp_path: Path) -> Path:
    """Archive and imports storage in folders of the test's own; the export file, written once."""
    settings.STORAGES = {
        **settings.STORAGES,
        "archive": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "archive")},
        },
    }
    imports_storage(settings, tmp_path / "imports")
    export = tmp_path / "alpha.json"
    export.write_bytes(export_bytes(COUNT))
    return export


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages' queueing does not reach the broker: the tests run the task themselves."""
    monkeypatch.setattr(tasks.import_github_export, "apply_async", lambda **_: None)


def import_cli(slug: str, export: Path) -> str:
    out = io.StringIO()
    call_command("import_issues", slug, "--format", "github", "--project", f"ALPHA={export}", stdout=out)
    return out.getvalue()


def queue_web(slug: str, owner: Any, export: Path) -> str:
    """What the upload form does: keep the file and queue its import (a new form: a new key); the import's id."""
    membership = Membership.objects.get(tenant__slug=slug, user=owner)
    data = export.read_bytes()
    return import_services.import_queue(
        membership=membership,
        key="MOVED",
        name="Moved in",
        data=data,
        filename="issues.json",
        preview=import_services.import_preview(data=data, name="issues.json"),
        idempotency_key=new_attachment_id(),
    ).import_id


def import_web(slug: str, owner: Any, export: Path) -> dict[str, Any]:
    """What the upload form and the worker do: queue the import, run the task."""
    import_id = queue_web(slug, owner, export)
    state = import_get(tenant=slug, import_id=import_id)
    assert state is not None
    outcome = tasks.import_github_export.apply(args=[slug, import_id], task_id=state.task_id)
    assert outcome.successful(), outcome.traceback
    result: dict[str, Any] = outcome.get()["result"]
    return {**result, "import_id": import_id}


def offboard(slug: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("offboard_tenant", slug, "--yes", "--json", stdout=out)
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def test_offboarding_deletes_the_teams_import_job_items_and_a_recreated_team_imports_everything_again(
    world: World, other_world: World, storages: Path, queued: None
) -> None:
    slug = world.slug
    assert "wrote" in import_cli(slug, storages)
    web = import_web(slug, world.owner, storages)
    assert web["status"] == "done"
    import_cli(other_world.slug, storages)  # another team, the same file: its own checkpoint

    names = jobs.tenant_job_names(slug)
    loads = [n for n in names if n.startswith(f"import_issues:{slug}:")]
    assert len(loads) == 2  # the command's and the web job's (different project keys: two fingerprints)
    assert names == sorted(
        [f"import_claim:{slug}:{web['import_id']}", *loads, f"import_upload:{slug}:{web['import_id']}"]
    )
    for name in names:
        state = jobs.job_state(name)
        assert state is not None
        assert state.tenant == slug
    others = jobs.tenant_job_names(other_world.slug)
    assert len(others) == 1

    report = offboard(slug)

    result = report["result"]
    assert report["status"] == "done"
    assert result["finished"]
    assert result["exported"]["by_part"]["jobs"] == 4
    assert result["remaining"]["jobs"] == 0
    store = DjangoArchiveStore()
    manifest = item_archive.read_manifest(store, result["archive"])
    assert manifest is not None
    (part,) = [p for p in manifest["parts"] if p["part"] == "jobs"]
    archived = {item["j"]["S"]: item for item in item_archive.read_part(store, part)}
    assert sorted(archived) == names
    record = json.loads(archived[f"import_upload:{slug}:{web['import_id']}"]["cp"]["S"])
    assert (record["project"], record["file"], record["owner"]) == ("MOVED", "issues.json", world.owner.username)
    assert jobs.tenant_job_names(slug) == []
    assert [jobs.job_state(name) for name in names] == [None] * len(names)
    own = jobs.job_state(f"offboard_tenant:{slug}")
    assert own is not None  # the offboarding job's token outlives the team it deleted
    assert own.tenant is None
    assert jobs.tenant_job_names(other_world.slug) == others
    assert all(jobs.job_state(name) is not None for name in others)

    # The slug comes back: the row is deleted (nothing is left), and the retired-slug record is
    # lost too — as when Django's database is rebuilt over a DynamoDB that kept its data.
    Tenant.objects.get(slug=slug).delete()
    RetiredSlug.objects.filter(slug=slug).delete()
    assert slug_unavailable(slug) is None
    again = Tenant.objects.create(slug=slug, name="Again")
    Membership.objects.create(tenant=again, user=world.owner, role="owner")

    out = import_cli(slug, storages)
    assert "already imported" not in out
    assert ddb_issues.issue_numbers(tenant=slug, project_key="ALPHA") == expected_numbers(COUNT)
    web_again = import_web(slug, world.owner, storages)
    assert web_again["status"] == "done"
    assert web_again["summary"]["written"] == web_again["summary"]["items"] > 0
    assert web_again["summary"]["resumed_after"] == 0
    assert ddb_issues.issue_numbers(tenant=slug, project_key="MOVED") == expected_numbers(COUNT)


def test_an_upload_whose_import_never_ran_goes_with_the_team(
    world: World, storages: Path, queued: None, tmp_path: Path
) -> None:
    queue_web(world.slug, world.owner, storages)  # queued, and the worker never got to it
    assert len(stored_files(tmp_path / "imports")) == 1

    report = offboard(world.slug)

    assert report["result"]["uploads_deleted"] == 1
    assert stored_files(tmp_path / "imports") == []
    assert jobs.tenant_job_names(world.slug) == []
