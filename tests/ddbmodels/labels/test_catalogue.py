"""A team's managed labels on DynamoDB Local: the catalogue and prefix Queries, version-checked saves, state marks."""

from __future__ import annotations

import pytest

from ddbmodels import labels
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, NotFound

pytestmark = pytest.mark.ddblocal


def register(tenant: str, *names: str) -> None:
    labels.registry_forget()
    labels.registry_ensure(tenant, names)


def test_the_catalogue_is_one_query_of_the_registry_by_name_with_defaults_for_plain_items(tenant: str) -> None:
    register(tenant, "ui", "bug", "feature")
    register(f"{tenant}x", "other-team")
    with capacity.measure() as meter:
        found = labels.label_catalogue(tenant)
    assert [label.name for label in found] == ["bug", "feature", "ui"]
    assert all(label.colour == labels.DEFAULT_COLOUR and label.version == 0 and label.in_use for label in found)
    assert meter.requests == 1


def test_a_save_sets_colour_and_description_and_bumps_the_version_only_from_the_version_read(tenant: str) -> None:
    register(tenant, "bug")
    saved = labels.label_save(tenant, "bug", colour="red", description="Something broken", expected_version=0)
    assert (saved.colour, saved.description, saved.version) == ("red", "Something broken", 1)
    with pytest.raises(ChangedSinceRead):
        labels.label_save(tenant, "bug", colour="blue", description="", expected_version=0)  # stale form
    again = labels.label_save(tenant, "bug", colour="blue", description="", expected_version=1)
    assert (again.colour, again.description, again.version) == ("blue", "", 2)
    assert labels.label_get(tenant, "bug") == again


def test_a_save_refuses_an_unknown_colour_a_long_description_and_an_unregistered_label(tenant: str) -> None:
    register(tenant, "bug")
    with pytest.raises(InvalidInput):
        labels.label_save(tenant, "bug", colour="#ff0000", description="", expected_version=0)
    with pytest.raises(InvalidInput):
        labels.label_save(tenant, "bug", colour="red", description="x" * 201, expected_version=0)
    with pytest.raises(NotFound):
        labels.label_save(tenant, "nope", colour="red", description="", expected_version=0)
    assert labels.label_get(tenant, "nope") is None
    assert labels.label_get(tenant, "bug") == labels.Label(name="bug")  # nothing changed


def test_the_prefix_page_is_one_query_limited_to_the_names_starting_with_the_prefix(tenant: str) -> None:
    register(tenant, "back", "backend", "bug", "build", "docs", "b")
    with capacity.measure() as meter:
        found = labels.label_prefix_page(tenant, "ba", limit=10)
    assert [label.name for label in found] == ["back", "backend"]
    assert meter.requests == 1
    assert [label.name for label in labels.label_prefix_page(tenant, "b", limit=3)] == ["b", "back", "backend"]
    assert [label.name for label in labels.label_prefix_page(tenant, "", limit=2)] == ["b", "back"]
    assert labels.label_prefix_page(tenant, "z") == []


def test_marks_move_a_label_through_renaming_to_gone_and_a_busy_label_takes_no_save(tenant: str) -> None:
    register(tenant, "bug")
    busy = labels.label_mark(tenant, "bug", state=labels.RENAMING, expected_version=0, renamed_to="defect", total=30)
    assert (busy.state, busy.renamed_to, busy.total, busy.done, busy.version) == ("renaming", "defect", 30, 0, 1)
    assert busy.busy
    with pytest.raises(ChangedSinceRead):
        labels.label_save(tenant, "bug", colour="red", description="", expected_version=1)
    with pytest.raises(ChangedSinceRead):  # a second rename cannot start over a running one
        labels.label_mark(tenant, "bug", state=labels.REMOVING, expected_version=1)
    labels.label_progress(tenant, "bug", done=25)
    assert labels.label_get(tenant, "bug").done == 25  # type: ignore[union-attr]
    gone = labels.label_mark(tenant, "bug", state=labels.GONE, expected_version=1, renamed_to="defect")
    assert (gone.state, gone.renamed_to, gone.version) == ("gone", "defect", 2)
    with pytest.raises(ChangedSinceRead):  # nothing to report progress on any more
        labels.label_progress(tenant, "bug", done=30)
    with pytest.raises(ChangedSinceRead):  # gone only from a busy state
        labels.label_mark(tenant, "bug", state=labels.GONE, expected_version=2)
    back = labels.label_mark(tenant, "bug", state=labels.IN_USE, expected_version=2)
    assert (back.state, back.renamed_to, back.total) == ("", "", 0)
    assert [label.name for label in labels.label_catalogue(tenant)] == ["bug"]  # never deleted


def test_the_issue_count_and_the_work_list_read_the_labels_own_partition(tenant: str) -> None:
    register(tenant, "bug")
    for number in range(1, 4):
        labels.entry_put(
            {
                "lk": {"S": labels.label_key(tenant, "bug")},
                "s": {"S": labels.entry_sort("open", "WEB", number)},
                "v": {"N": "1"},
            }
        )
    assert labels.label_issue_count(tenant, "bug") == 3
    assert labels.label_issue_count(tenant, "other") == 0
    assert [labels.issue_of(item["s"]["S"]) for item in labels.label_entries(tenant, "bug", limit=2)] == [
        ("WEB", 1),
        ("WEB", 2),
    ]


def test_a_bounded_count_reads_one_page_of_at_most_limit_plus_one_entries(tenant: str) -> None:
    register(tenant, "bug")
    for number in range(1, 31):
        labels.entry_put(
            {
                "lk": {"S": labels.label_key(tenant, "bug")},
                "s": {"S": labels.entry_sort("open", "WEB", number)},
                "v": {"N": "1"},
            }
        )
    with capacity.measure() as meter:
        assert labels.label_issue_count(tenant, "bug", limit=25) == 26  # more than 25
    assert meter.requests == 1
    assert labels.label_issue_count(tenant, "bug", limit=40) == 30
    assert labels.label_issue_count(tenant, "bug") == 30


def test_a_busy_mark_keeps_its_form_key_and_starter_until_the_label_is_in_use_again(tenant: str) -> None:
    """The confirm form's key and who confirmed ride on the busy mark and stay when it is gone (a late second send
    is told it was this form, or who); the total can be left to the job, which sets it with the progress."""
    register(tenant, "bug")
    busy = labels.label_mark(
        tenant, "bug", state=labels.REMOVING, expected_version=0, form_key="01JKEYKEYKEYKEYKEYKEYKEYKE", by="alice"
    )
    assert (busy.form_key, busy.started_by, busy.total) == ("01JKEYKEYKEYKEYKEYKEYKEYKE", "alice", 0)
    labels.label_progress(tenant, "bug", done=0, total=40)
    assert labels.label_get(tenant, "bug").total == 40  # type: ignore[union-attr]
    gone = labels.label_mark(tenant, "bug", state=labels.GONE, expected_version=1)
    assert (gone.form_key, gone.started_by, gone.total) == ("01JKEYKEYKEYKEYKEYKEYKEYKE", "alice", 40)
    back = labels.label_mark(tenant, "bug", state=labels.IN_USE, expected_version=2)
    assert (back.form_key, back.started_by, back.total) == ("", "", 0)
