"""A team's own job items carry the team and are found by one Query of the sparse ``by_tenant`` index."""

from __future__ import annotations

import pytest

from ddbmodels import jobs
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.errors import InvalidInput
from ddbmodels.jobs import JobItem

pytestmark = pytest.mark.ddblocal


def stored_tenant(job: str) -> str | None:
    item = jobs.job_state(job)
    assert item is not None, f"{job} is missing"
    return item.tenant


def test_only_items_written_with_a_team_carry_it_and_later_writes_keep_it(tenant: str) -> None:
    mine = f"import_issues:{tenant}:0123456789abcdef"
    nobodys = f"offboard_tenant:{tenant}"

    token = jobs.fence_acquire(mine, "run-1", tenant=tenant)
    jobs.fence_acquire(nobodys, "run-2")
    assert stored_tenant(mine) == tenant
    assert stored_tenant(nobodys) is None

    jobs.checkpoint_save(mine, token, "25")
    jobs.fence_check(mine, token)
    again = jobs.fence_acquire(mine, "run-3")  # a run that does not name the team (run_job) keeps the tag
    jobs.checkpoint_save(mine, again, None)
    assert stored_tenant(mine) == tenant
    assert jobs.tenant_job_names(tenant) == [mine]


def test_a_teams_job_items_are_one_query_of_the_index_and_no_other_teams(tenant: str) -> None:
    other = f"{tenant}-other"
    names = sorted(f"import_upload:{tenant}:{n:02d}" for n in range(3))
    for name in names:
        jobs.fence_acquire(name, "web", tenant=tenant)
    jobs.fence_acquire(f"import_upload:{other}:00", "web", tenant=other)
    jobs.fence_acquire(f"leaderboard_repair:{tenant}", "run")  # written without the team: not in the index

    with capacity.measure() as meter:
        found = jobs.tenant_job_names(tenant)
    assert found == names
    assert (meter.requests, meter.rcu) == (1, 0.5)
    assert jobs.tenant_job_names(other) == [f"import_upload:{other}:00"]
    assert jobs.tenant_job_names(f"{tenant}-nobody") == []


def test_the_tag_costs_one_index_entry_when_it_is_set_and_checkpoints_write_none(tenant: str) -> None:
    name = f"import_issues:{tenant}:fedcba9876543210"
    with capacity.measure() as first:
        token = jobs.fence_acquire(name, "run-1", tenant=tenant)
    with capacity.measure() as checkpoint:
        jobs.checkpoint_save(name, token, "50")
    with capacity.measure() as untagged:
        jobs.fence_acquire(f"distinct_keys:{tenant}", "run-1")
    assert first.wcu == 2.0  # the item + its by_tenant entry
    assert checkpoint.wcu == 1.0  # neither tn nor a projected attribute changed: no index write
    assert untagged.wcu == 1.0


def test_a_bad_team_is_refused_before_anything_is_written(tenant: str) -> None:
    name = f"import_claim:{tenant}:x"
    for bad in ("", "Upper", "has#hash", "a:b"):
        with pytest.raises(InvalidInput):
            jobs.fence_acquire(name, "web", tenant=bad)
    assert jobs.job_state(name) is None


def _old_jobs_table() -> None:
    """The jobs table as it was before ``by_tenant``: the hash key only."""
    connection.client().create_table(
        TableName=JobItem.Meta.table_name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "j", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "j", "KeyType": "HASH"}],
    )
    tables.wait_active(JobItem.Meta.table_name)


def test_create_all_adds_the_index_to_an_existing_jobs_table_and_old_items_stay_untagged(own_prefix: str) -> None:
    _old_jobs_table()
    old = "import_issues:acme:00000000000000aa"
    jobs.fence_acquire(old, "before-the-index")  # written the old way: no team
    jobs.checkpoint_save(old, 1, "75")

    reports = {report.base: report for report in tables.create_all()}

    assert reports["jobs"].created is False
    assert reports["jobs"].indexes_added == (jobs.BY_TENANT_INDEX,)
    described = tables.describe_table(JobItem.Meta.table_name)
    assert described is not None
    (index,) = described["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "by_tenant"
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert index["KeySchema"] == [{"AttributeName": "tn", "KeyType": "HASH"}]
    state = jobs.job_state(old)
    assert state is not None
    assert (state.checkpoint, state.tenant) == ("75", None)  # kept, untagged
    assert jobs.tenant_job_names("acme") == []
    jobs.fence_acquire(old, "rerun", tenant="acme")  # the next run of the import tags it
    assert jobs.tenant_job_names("acme") == [old]
    again = {report.base: report for report in tables.create_all()}
    assert again["jobs"].indexes_added == ()
