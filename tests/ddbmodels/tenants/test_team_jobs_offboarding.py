"""Offboarding takes a team's own job items with it (exported, deleted, checked), found through the jobs index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ddbmodels import issues, jobs
from ddbmodels.attachments.flow import LocalBlobStore
from ddbmodels.core import capacity
from ddbmodels.core.storage import LocalDirStore
from ddbmodels.patterns import item_archive
from ddbmodels.tenants import Shards, offboard, reads, remaining, tenant_has_data
from ddbmodels.tenants import offboarding as ddb_offboarding

pytestmark = pytest.mark.ddblocal
SHARDS = Shards(scores=2, events=2)


def team_jobs(tenant: str) -> list[str]:
    """An import's three kinds of job items, as the import code writes them (with the team)."""
    upload, claim, load = (
        f"import_upload:{tenant}:01JD0000000000000000000000",
        f"import_claim:{tenant}:01JD0000000000000000000000",
        f"import_issues:{tenant}:0123456789abcdef",
    )
    token = jobs.fence_acquire(upload, "web", tenant=tenant)
    jobs.checkpoint_save(upload, token, json.dumps({"project": "MOVED", "file": "issues.json", "owner": "ann"}))
    jobs.fence_acquire(claim, "ann", tenant=tenant)
    token = jobs.fence_acquire(load, "run", tenant=tenant)
    jobs.checkpoint_save(load, token, "42")
    return sorted([upload, claim, load])


class Checkpoint:
    value: str | None = None

    def save(self, value: str | None) -> None:
        self.value = value


def run_offboard(tenant: str, tmp_path: Path) -> tuple[dict[str, Any], LocalDirStore]:
    store = LocalDirStore(tmp_path / "archive")
    saved = Checkpoint()
    report = offboard(
        tenant,
        store=store,
        blobs=LocalBlobStore(tmp_path / "files"),
        shards=SHARDS,
        checkpoint=None,
        save_checkpoint=saved.save,
        progress=lambda **_: None,
    )
    return report, store


def test_offboarding_exports_and_deletes_the_teams_job_items_and_keeps_everyone_elses(
    tenant: str, tmp_path: Path
) -> None:
    names = team_jobs(tenant)
    others = team_jobs(f"{tenant}-b")
    own_job = f"offboard_tenant:{tenant}"
    jobs.fence_acquire(own_job, "run-1")  # the offboarding job itself: written without the team
    issues.project_create(tenant=tenant, key="WEB", name="Web", created_by="ann")

    report, store = run_offboard(tenant, tmp_path)

    assert report["exported"]["by_part"]["jobs"] == 3
    assert report["remaining"]["jobs"] == 0
    manifest = item_archive.read_manifest(store, report["archive"])
    assert manifest is not None
    (entry,) = [p for p in manifest["parts"] if p["part"] == "jobs"]
    assert entry["key"] == ["j"]
    archived = {item["j"]["S"]: item for item in item_archive.read_part(store, entry)}
    assert sorted(archived) == names
    assert json.loads(archived[names[2]]["cp"]["S"])["file"] == "issues.json"  # the upload's record, whole
    assert archived[names[1]]["cp"]["S"] == "42"  # the load's checkpoint
    assert all(item["tn"]["S"] == tenant for item in archived.values())
    assert [p["part"] for p in manifest["parts"]][-1] == "issues"  # issues still last

    assert jobs.tenant_job_names(tenant) == []
    assert [jobs.job_state(name) for name in names] == [None, None, None]
    assert jobs.job_state(own_job) is not None
    assert jobs.tenant_job_names(f"{tenant}-b") == others
    assert all(jobs.job_state(name) is not None for name in others)


def test_job_items_alone_are_data_of_the_team_until_offboarded(tenant: str, tmp_path: Path) -> None:
    """An import that never created its project leaves its record: the slug still holds data."""
    assert tenant_has_data(tenant, score_shards=SHARDS.scores) is False
    team_jobs(tenant)
    assert tenant_has_data(tenant, score_shards=SHARDS.scores) is True
    assert remaining(tenant, [], shards=SHARDS)["jobs"] == 3

    report, _ = run_offboard(tenant, tmp_path)

    assert report["exported"]["items"] == 3
    assert not any(report["remaining"].values())
    assert tenant_has_data(tenant, score_shards=SHARDS.scores) is False


def test_reading_the_teams_job_items_costs_the_index_query_and_one_consistent_read_each(tenant: str) -> None:
    names = team_jobs(tenant)
    with capacity.measure() as meter:
        pages = list(reads.part_pages(tenant, "jobs"))
    assert sorted(item["j"]["S"] for page in pages for item in page) == names
    assert meter.requests == 2  # Query by_tenant, BatchGetItem
    assert meter.rcu == 0.5 + 3 * 1.0
    with capacity.measure() as none:
        assert list(reads.part_pages(f"{tenant}-none", "jobs")) == []
    assert (none.requests, none.rcu) == (1, 0.0)  # the Query only (DynamoDB Local charges 0 for an empty one)


def test_deleting_a_teams_job_item_costs_the_item_and_its_index_entry(tenant: str) -> None:
    names = team_jobs(tenant)
    with capacity.measure() as meter:
        ddb_offboarding.delete_keys(jobs.JobItem.Meta.table_name, [{"j": {"S": name}} for name in names])
    assert meter.wcu == 3 * 2.0
    assert jobs.tenant_job_names(tenant) == []
