"""Each table package declares what it stores for a team (or that it stores nothing per team), and
offboarding and "does this team still hold data?" loop over those declarations."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import ddbmodels
from ddbmodels import attachments, comments, events, idempotency, inbox, issues, jobs, labels, orders, scores, webhooks
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.keys import utcnow
from ddbmodels.core.team_data import NoTeamData, Shards, Team, TeamData
from ddbmodels.patterns.time_series import period_shift
from ddbmodels.tenants import declarations, offboarding, reads

# The archive parts as the offboarding code before the declarations named and ordered them (its DELETE_ORDER):
# a checkpoint names a part by its place in the archive's manifest, so keeping names and order keeps every
# archive and checkpoint written before resumable.
PARTS_BEFORE = (
    "attachments",
    "comments",
    "scores",
    "events",
    "inbox",
    "jobs",
    "preferences",  # issue 21: a new part (saved views, notification settings), no earlier archive lists it
    "webhooks",  # issue 22: a new part (endpoints and their deliveries), no earlier archive lists it
    "labels",
    "milestones",  # issue 21: a new part, after every part an earlier archive has (none of them lists it)
    "idempotency_keys",
    "orders",
    "idempotency",
    "terms",
    "issues",
)


def test_every_table_package_under_ddbmodels_declares_its_team_data() -> None:
    found = declarations.declarations()

    assert sorted(found) == declarations.table_packages() == sorted(ddbmodels.TABLE_PACKAGES)
    assert isinstance(found["counters"], NoTeamData)
    storing_nothing = {"counters"}
    assert all(isinstance(d, tuple) for name, d in found.items() if name not in storing_nothing)


def test_every_registered_table_is_a_declared_part_of_its_own_package() -> None:
    """A package that declares its team data must declare it for each table it owns (none forgotten)."""
    found = declarations.declarations()
    for base, model in connection.registered().items():
        package = model.__module__.split(".")[1]
        declared = found[package]
        if isinstance(declared, NoTeamData):
            continue
        assert base in {d.part for d in declared}, f"ddbmodels.{package} owns the table {base} but does not declare it"


def test_the_declared_parts_keep_the_names_and_delete_order_of_earlier_archives_and_checkpoints() -> None:
    by_order = sorted(declarations.team_data(), key=lambda d: d.delete_order)

    assert tuple(d.part for d in by_order) == PARTS_BEFORE
    assert declarations.team_data()[0].part == "issues"  # read first: the parts keyed by issue derive their keys
    assert declarations.delete_order("events-2026-11") == declarations.delete_order("events")
    assert declarations.delete_order("idempotency_keys") < declarations.delete_order("idempotency")
    assert list(offboarding.delete_costs()) == list(PARTS_BEFORE)


def test_each_declaration_can_be_probed_or_says_which_probe_finds_its_items() -> None:
    parts = {d.part for d in declarations.team_data()}
    for declared in declarations.team_data():
        if declared.probe is None:
            assert declared.found_through.split(":")[0] in parts, declared
    with pytest.raises(ValueError, match="found_through"):
        TeamData(part="x", find=lambda team, table: iter(()), delete_order=1, index_entries="0")
    with pytest.raises(ValueError, match="reason"):
        NoTeamData(" ")


def _fake_tree(root: Path, packages: dict[str, str]) -> None:
    (root / "core").mkdir(parents=True)
    (root / "patterns").mkdir()
    for folder in (root, root / "core", root / "patterns"):
        (folder / "__init__.py").write_text("")
    for name, init in packages.items():
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(init)
        (root / name / "model.py").write_text("TABLE = 'widgets'\n")


@pytest.fixture
def fake_root(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path / "fakeddb"
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m == "fakeddb" or m.startswith("fakeddb.")]:
        del sys.modules[name]


def test_a_table_package_that_declares_neither_fails_naming_the_package_and_what_to_add(fake_root: Path) -> None:
    _fake_tree(
        fake_root,
        {
            "gadgets": "from ddbmodels.core.team_data import NoTeamData\nTEAM_DATA = NoTeamData('global')\n",
            "widgets": "from fakeddb.widgets.model import TABLE\n",  # a table, and no declaration
            "sprockets": "TEAM_DATA = ()\n",  # an empty declaration is no declaration
        },
    )

    assert declarations.table_packages(fake_root) == ["gadgets", "sprockets", "widgets"]
    with pytest.raises(declarations.MissingDeclaration) as refused:
        declarations.declarations(fake_root, "fakeddb")

    message = str(refused.value)
    assert "fakeddb.widgets declares no team data" in message
    assert "fakeddb.sprockets declares no team data" in message
    assert "gadgets" not in message
    assert "TEAM_DATA = (TeamData(" in message
    assert "NoTeamData(" in message


def test_a_declared_package_passes(fake_root: Path) -> None:
    _fake_tree(fake_root, {"gadgets": "from ddbmodels.core.team_data import NoTeamData\nTEAM_DATA = NoTeamData('x')\n"})

    assert declarations.declarations(fake_root, "fakeddb") == {"gadgets": NoTeamData("x")}


@pytest.mark.ddblocal
def test_a_team_whose_only_items_are_events_still_holds_data(tenant: str) -> None:
    """Before the declarations, "does this team still hold data?" probed no events table: an event of a team
    without projects (written after its export, or left by a failed run) let the slug be taken again."""
    shards = Shards(scores=2, events=2)
    assert not reads.tenant_has_data(tenant, score_shards=2, event_shards=2)

    events.event_put(stream=f"{tenant}#WEB#1", kind="issue.edited", actor="ann", tenant=tenant, shards=2)

    assert reads.holding_part(tenant, shards) is not None
    assert reads.holding_part(tenant, shards).startswith("events-")  # type: ignore[union-attr]
    assert reads.tenant_has_data(tenant, score_shards=2, event_shards=2)


@pytest.mark.ddblocal
def test_has_data_probes_the_cheapest_declarations_first_and_stops_at_the_first_item(tenant: str) -> None:
    jobs.fence_acquire(f"import_claim:{tenant}:01JD0000000000000000000000", "ann", tenant=tenant)
    labels.registry_ensure(tenant, {"bug"})

    with capacity.measure() as meter:
        part = reads.holding_part(tenant, Shards(scores=2, events=2))

    assert part in {"jobs", "labels"}
    assert meter.by_operation["Query"] <= 5  # issues, inbox, jobs, labels, orders (one Query each): no events sweep


@pytest.mark.ddblocal
def test_an_empty_team_costs_every_probe_once_as_stated(tenant: str) -> None:
    """``tenant_has_data``'s docstring: projects, orders, labels, inbox, jobs, preferences, webhooks, 8 idempotency
    shards, the score shards, any old layout's table, and a Query per day and shard of every events table — each
    0.5 RCU at most."""
    events.event_put(stream=f"{tenant}-other#WEB#1", kind="issue.edited", actor="ann", tenant=f"{tenant}-other")
    days = 0
    for table in reads.event_tables():
        kind, _, start = events.parse_events_table_name(table) or ("", "", None)
        assert start is not None
        days += (period_shift(kind, start, 1) - start).days  # type: ignore[arg-type]
    legacy = sum(reads.tenant_key_name(base) is not None for base in ("idempotency", "terms"))

    with capacity.measure() as meter:
        assert not reads.tenant_has_data(tenant, score_shards=3, event_shards=2)

    assert days >= 28
    assert meter.by_operation["Query"] == 7 + idempotency.SHARDS + 3 + legacy + days * 2  # + free List/Describe
    assert meter.rcu <= 0.5 * meter.requests


def _stated_entries(declared: TeamData) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", declared.index_entries)}


@pytest.mark.ddblocal
def test_deleting_each_kind_of_a_teams_items_costs_1_wcu_plus_the_index_entries_its_declaration_states(
    tenant: str, make_project: Callable[..., Any]
) -> None:
    """Every item of a small team (each kind ≤ 1 KB) deleted alone: the WCU beyond 1 is its index entries, one of
    the numbers its declaration's ``index_entries`` states (the old cost note said 1 for an issue: it is 3 or 4)."""
    make_project("WEB")
    first = issues.issue_create(
        tenant=tenant,
        project_key="WEB",
        title="Ship",
        reporter="ann",
        assignee="ann",
        labels=["ops"],
        idempotency_key=f"{tenant}-1",
    ).item
    issues.issue_create(tenant=tenant, project_key="WEB", title="Docs", reporter="ann")
    scores.award_issue(issues.issue_change_status(first, to="resolved"), shards=2)
    orders.order_place(customer=tenant, product="seats", quantity=1, delivery="standard", placed_by="ann")
    comments.comment_add(tenant=tenant, project_key="WEB", number=1, author="ann", body="On it.")
    attachments.attachment_begin(
        tenant=tenant,
        project_key="WEB",
        number=2,
        filename="a.txt",
        size=1,
        sha256="0" * 64,
        content_type="text/plain",
        by="ann",
    )
    inbox.watch(tenant=tenant, project_key="WEB", number=1, username="ann")
    note = inbox.Note("bob", "WEB", 1, "ann", "issue.status", "ann resolved WEB-1")
    inbox.deliver(tenant=tenant, event_key="2026-11-22T10:15:30.123Z#0000000a", notes=[note])
    jobs.fence_acquire(f"import_claim:{tenant}:01JD0000000000000000000000", "ann", tenant=tenant)
    events.event_put(stream=f"{tenant}#WEB#1", kind="issue.edited", actor="ann", tenant=tenant, shards=2)
    hook, _ = webhooks.endpoint_put(
        tenant,
        webhooks.endpoint_id_for("k1"),
        url="https://x.example/",
        events=["a"],
        secret="s",
        description="",
        created_by="ann",
    )
    webhooks.delivery_put(
        tenant=tenant,
        endpoint_id=hook.id,
        event_key="2026-11-22T10:15:30.123Z#0000000a",
        type="issue.created",
        payload="{}",
        now=utcnow(),
        keep_days=30,
    )

    team = Team(tenant, Shards(scores=2, events=2))
    measured: dict[str, set[int]] = {}
    for declared in declarations.team_data():
        for _, table in declared.physical_tables():
            key_names = [k["AttributeName"] for k in (tables.describe_table(table) or {"KeySchema": []})["KeySchema"]]
            for item in [item for page in declared.find(team, table) for item in page]:
                with capacity.measure() as meter:
                    offboarding.delete_keys(table, [{name: item[name] for name in key_names}])
                measured.setdefault(declared.part, set()).add(round(meter.wcu) - 1)

    expected = {"issues", "orders", "labels", "idempotency_keys", "attachments", "comments", "scores", "inbox", "jobs"}
    expected |= {"webhooks"}
    assert expected | {"events"} <= set(measured)
    for declared in declarations.team_data():
        assert measured.get(declared.part, set()) <= _stated_entries(declared), (declared.part, measured)
    assert measured["webhooks"] == {0, 1}  # an endpoint; a pending delivery and its due entry
    assert measured["issues"] >= {1, 4}  # the project's static item, the assigned live issue (3 or 4 when not)
