"""The preferences table on DynamoDB Local: views saved once, shared and unshared on their version, settings."""

from __future__ import annotations

import time

import pytest

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from ddbmodels.core.team_data import Shards, Team
from ddbmodels.preferences import NotifySetting
from ddbmodels.preferences.model import generation_start

pytestmark = pytest.mark.ddblocal


def save(tenant: str, who: str = "alice", name: str = "Open bugs", **kwargs: object) -> preferences.SavedView:
    view, created = preferences.view_save(
        tenant,
        who,
        view_id=str(kwargs.pop("view_id", new_attachment_id())),
        name=name,
        query=str(kwargs.pop("query", "is:open label:bug")),
        **kwargs,  # type: ignore[arg-type]
    )
    assert created
    return view


def test_a_view_is_saved_once_per_form_key_and_is_its_authors_alone(tenant: str) -> None:
    key = new_attachment_id()
    first, created = preferences.view_save(tenant, "alice", view_id=key, name=" Open bugs ", query="is:open  label:bug")
    again, created_again = preferences.view_save(tenant, "alice", view_id=key, name="Other", query="is:closed")

    assert created
    assert not created_again
    assert again == first
    assert first.name == "Open bugs"
    assert first.query == "is:open label:bug"
    assert first.version == 1
    assert [v.id for v in preferences.views_mine(tenant, "alice")] == [key]
    assert preferences.views_mine(tenant, "bob") == []
    assert preferences.views_shared(tenant) == []
    assert preferences.view_get(tenant, "bob", key) is None
    assert preferences.view_get(tenant, "alice", key) == first


def test_sharing_puts_a_copy_in_the_team_partition_and_unsharing_takes_it_away(tenant: str) -> None:
    view = save(tenant, project="WEB")
    shared = preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))

    assert shared is not None
    assert shared.shared
    assert shared.version == 2
    assert shared.project == "WEB"
    assert preferences.views_shared(tenant) == [shared]
    assert preferences.view_get(tenant, "bob", view.id) == shared
    renamed = preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(2, name="Bugs"))
    assert renamed is not None
    assert preferences.views_shared(tenant)[0].name == "Bugs"

    with pytest.raises(ChangedSinceRead):  # the page showed version 2: nothing changes
        preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(2, shared=False))
    assert preferences.views_shared(tenant) == [renamed]

    preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(3, shared=False))
    assert preferences.views_shared(tenant) == []
    assert preferences.view_get(tenant, "bob", view.id) is None
    assert preferences.views_mine(tenant, "alice")[0].version == 4


def test_only_the_author_changes_a_view_and_a_delete_takes_the_shared_copy_too(tenant: str) -> None:
    view = save(tenant)
    preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))

    with pytest.raises(ChangedSinceRead):  # bob's partition has no such view: nothing of alice's changes
        preferences.view_change(tenant, "bob", view.id, preferences.ViewEdit(2, delete=True))
    assert preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(2, delete=True)) is None
    assert preferences.views_mine(tenant, "alice") == []
    assert preferences.views_shared(tenant) == []


def test_bad_names_are_refused_and_nothing_is_written(tenant: str) -> None:
    for name in ("", "   ", "x" * (preferences.NAME_MAX + 1)):
        with pytest.raises(InvalidInput):
            preferences.view_save(tenant, "alice", view_id=new_attachment_id(), name=name, query="is:open")
    with pytest.raises(InvalidInput):
        preferences.view_save(tenant, "alice", view_id="not-a-ulid", name="x", query="is:open")
    assert preferences.views_mine(tenant, "alice") == []


def test_notification_settings_default_then_change_on_their_version(tenant: str) -> None:
    assert preferences.notify_team(tenant) == preferences.TeamNotify(people={}, generation=0)
    started = generation_start(time.time())
    made = preferences.notify_set(tenant, "carol", level="watching", email=False, expected_version=0)
    first = made.people["carol"]
    team = preferences.notify_set(tenant, "bob", level="off", email=True, expected_version=0)

    assert first == NotifySetting(level="watching", email=False, version=1)
    assert team == preferences.notify_team(tenant, consistent=True)  # the whole item as written (ALL_NEW)
    # each change raises the generation by one, from the time in ms × 1000 (a team made again starts above)
    assert started < made.generation < generation_start(time.time() + 60)
    assert team.generation == made.generation + 1
    assert preferences.notify_settings(tenant, consistent=True) == {
        "carol": first,
        "bob": NotifySetting(level="off", email=True, version=1),
    }
    with pytest.raises(ChangedSinceRead):  # a second page loaded before the first change
        preferences.notify_set(tenant, "carol", level="off", email=True, expected_version=0)
    with pytest.raises(InvalidInput):
        preferences.notify_set(tenant, "carol", level="loud", email=True, expected_version=1)
    assert preferences.notify_settings(tenant, consistent=True)["carol"] == first


def test_costs_match_the_model_docstring(tenant: str) -> None:
    with capacity.measure() as first:
        view = save(tenant)
    with capacity.measure() as second:
        save(tenant, name="Mine too")
    with capacity.measure() as share:
        preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))
    with capacity.measure() as menu:
        preferences.views_mine(tenant, "alice")
        preferences.views_shared(tenant)
    with capacity.measure() as setting:
        preferences.notify_set(tenant, "carol", level="off", email=True, expected_version=0)
    with capacity.measure() as read:
        preferences.notify_settings(tenant)

    assert (first.wcu, first.rcu) == (2, 0.5)  # registry: GetItem + PutItem; the view: PutItem
    assert (second.wcu, second.rcu, second.requests) == (1, 0, 1)  # the registry is remembered
    # one transaction of 2 items: DynamoDB bills 2 WCU an item ≤ 1 KB (4); DynamoDB Local reports 1 an item
    assert dict(share.by_operation) == {"GetItem": 1, "TransactWriteItems": 1}
    assert share.rcu == 1
    assert (menu.rcu, menu.requests) == (1, 2)
    assert setting.wcu == 2
    assert (read.rcu, read.requests) == (0.5, 1)


def test_offboarding_finds_every_item_through_the_team_partition(tenant: str) -> None:
    view = save(tenant)
    preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))
    save(tenant, "bob")
    preferences.notify_set(tenant, "carol", level="off", email=False, expected_version=0)
    (declared,) = preferences.TEAM_DATA
    table = declared.physical_tables()[0][1]

    pages = list(declared.find(Team(tenant=tenant, shards=Shards(scores=1, events=1)), table))
    found = sorted((item["pk"]["S"], item["s"]["S"]) for page in pages for item in page)

    assert pages[-1][0]["pk"]["S"] == preferences.team_key(tenant)  # the team partition last
    assert [s for pk, s in found if pk == preferences.team_key(tenant)] == ["n", "u#alice", "u#bob", f"v#{view.id}"]
    assert len(found) == 6
    assert declared.probe is not None


def test_an_owner_takes_a_shared_view_out_of_the_menu_and_its_author_keeps_it(tenant: str) -> None:
    view = save(tenant)
    preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))

    with pytest.raises(ChangedSinceRead):  # the page showed version 1: nothing changes
        preferences.view_unshare_team(tenant, view.id, expected_version=1)
    assert [v.id for v in preferences.views_shared(tenant)] == [view.id]
    with capacity.measure() as taken:
        copy = preferences.view_unshare_team(tenant, view.id, expected_version=2)

    assert (copy.name, copy.author) == ("Open bugs", "alice")
    assert preferences.views_shared(tenant) == []
    assert [(v.shared, v.version) for v in preferences.views_mine(tenant, "alice")] == [(False, 3)]
    assert dict(taken.by_operation) == {"GetItem": 2, "TransactWriteItems": 1}  # as the model docstring says
    with pytest.raises(ChangedSinceRead):  # no longer shared
        preferences.view_unshare_team(tenant, view.id, expected_version=2)


def test_a_shared_copy_whose_authors_view_is_gone_is_taken_alone(tenant: str) -> None:
    view = save(tenant)
    preferences.view_change(tenant, "alice", view.id, preferences.ViewEdit(1, shared=True))
    connection.client().delete_item(  # as a half-done write could leave it
        TableName=connection.table_name("preferences"),
        Key={"pk": {"S": preferences.person_key(tenant, "alice")}, "s": {"S": f"v#{view.id}"}},
    )

    preferences.view_unshare_team(tenant, view.id, expected_version=2)

    assert preferences.views_shared(tenant) == []
    assert preferences.views_mine(tenant, "alice") == []


def test_the_menu_reads_every_view_a_person_may_keep_in_one_request_at_its_stated_cost(tenant: str) -> None:
    for n in range(preferences.VIEWS_MAX):
        save(tenant, name=f"View {n:03}")
        save(tenant, "bob", name=f"{n:03} " + "n" * (preferences.NAME_MAX - 4), query="label:" + "q" * 480)
    with capacity.measure() as typical:
        mine = preferences.views_mine(tenant, "alice")
    with capacity.measure() as longest:
        bobs = preferences.views_mine(tenant, "bob")
    for n in range(preferences.VIEWS_READ - preferences.VIEWS_MAX):  # saves that raced past the limit: still read
        save(tenant, name=f"Raced {n:02}")

    assert len(mine) == len(bobs) == preferences.VIEWS_MAX
    assert typical.requests == longest.requests == 1
    assert typical.rcu <= 2  # the model docstring: ≤ 2 RCU for 100 typical views
    assert typical.rcu < longest.rcu <= 10  # … and ≤ 10 RCU at the longest name and query
    assert len(preferences.views_mine(tenant, "alice")) == preferences.VIEWS_READ
