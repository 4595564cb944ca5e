"""The labels pages, review round 2 (R2-15, R2-11, F19): a label name too long for a key is no 500; the rename or
delete confirm reads one page of the label's issues at most and the job counts the rest; a confirm sent twice says
whether it was this form, sent before, or somebody else."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ddbmodels import labels as ddb_labels
from ddbmodels.core import capacity
from ddbmodels.issues import LABEL_MAX
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, new_issue, text
from tracker import tasks
from tracker.services import labels as label_service


def _label(world: World, name: str) -> ddb_labels.Label:
    found = ddb_labels.label_get(world.slug, name)
    assert found is not None
    return found


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(label_service.enqueue, "delay", lambda name, *args, **kw: calls.append((name, *args)))
    return calls


def _key(page: str) -> str:
    found = re.search(r'name="idempotency_key" value="([^"]+)"', page)
    assert found, "the confirm page carries no form key"
    return found.group(1)


@pytest.mark.parametrize("length", [LABEL_MAX + 1, 300, 2000])
def test_a_label_name_too_long_for_a_label_is_not_found_on_every_label_url(world: World, length: int) -> None:
    """R2-15: a name over 1,024 bytes made DynamoDB refuse the key (ValidationException): a 500 on every label URL."""
    name = "a" * length
    member = world.client_for(world.member)
    for url in ("edit/", "rename/", "delete/", "progress/"):
        assert member.get(world.url(f"labels/{name}/{url}")).status_code == 404, url
    assert member.post(world.url(f"labels/{name}/resume/")).status_code == 404
    assert member.post(world.url(f"labels/{name}/delete/"), {"version": "0"}).status_code == 404
    assert world.client_for(world.viewer).get(world.url(f"labels/{name}/progress/")).status_code == 404


def test_the_confirm_of_a_big_label_reads_one_page_of_it_and_the_job_counts_the_rest(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    """R2-11: the confirm POST counted every page of the label's entries in the request (20,000 issues ≈ 1,500 RCU)
    only to show "N of M issues done". Now it counts one page (≤ 26 entries, ≤ 2 RCU), hands the rest to the job,
    and the labels page says how many are done until the job has counted them all."""
    count = 80  # ≈ 80 entries of ≈ 300 B: an unbounded consistent count reads ≥ 6 RCU
    for n in range(count):
        new_issue(world, f"Crash number {n} with a longer title to give its entry some size", labels={"bug"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    with capacity.measure() as meter:
        done = client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version, "confirm": "on"})
    assert done.status_code == 302
    counted = meter.by_pattern["labels.count"]
    assert counted.requests == 1, counted
    assert counted.rcu <= 2, counted  # one page at most (it read 4 RCU of 80 entries)
    busy = _label(world, "bug")
    assert (busy.state, busy.total, busy.done) == ("renaming", 0, 0)  # not counted yet: the job counts
    listing = text(client.get(world.url("labels/")))
    assert "0 issues done; counting how many in all." in listing
    assert (
        f'is being renamed to <strong>defect</strong> <span class="muted">(started by {world.member.username})'
        in listing
    )
    assert client.get(world.url("labels/bug/progress/")).json()["total"] == 0
    _name, *args = queued.pop(0)
    result = tasks.change_label.apply(args=args).get()
    assert result["result"]["state"] == "gone"
    assert _label(world, "bug").total == count  # the job counted them before moving them
    assert len(ddb_labels.label_entries(world.slug, "defect", limit=100)) == count


def test_a_job_that_counts_sets_the_total_before_its_first_batch(world: World, queued: list[tuple[Any, ...]]) -> None:
    """The job's count is on the label before any issue moves (the labels page's "N of M" from the first batch)."""
    for n in range(label_service.IN_REQUEST_MAX + 3):
        new_issue(world, f"Slow {n}", labels={"perf"})
    client = world.client_for(world.member)
    client.post(world.url("labels/perf/delete/"), {"version": _label(world, "perf").version})
    assert _label(world, "perf").total == 0
    seen: list[int] = []

    class Run:
        def fence(self) -> None:
            return None

        def progress(self, **_: Any) -> None:  # before each batch: what the labels page reads then
            seen.append(_label(world, "perf").total)

    label_service.change_label_job(Run(), tenant=world.slug, name="perf", actor="member")
    assert seen
    assert seen[0] == label_service.IN_REQUEST_MAX + 3
    assert _label(world, "perf").state == "gone"


def test_a_confirm_sent_twice_from_the_same_page_says_so_and_another_person_s_says_who(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    """F19: the second send of one confirm page is "this form, sent before"; a teammate's confirm of the same
    change names who did it — never "changed since it was read" nor "somebody" for one's own double click."""
    new_issue(world, "Crash", labels={"bug", "docs"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    page = text(client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version}))
    other = world.client_for(world.owner)  # a teammate opens the same confirm page meanwhile
    theirs = text(other.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version}))
    form = {"to": "defect", "version": version, "confirm": "on", "idempotency_key": _key(page)}
    assert flash(client.post(world.url("labels/bug/rename/"), form)) == ["Renaming bug to defect: 1 issue changed."]
    again = client.post(world.url("labels/bug/rename/"), form)
    assert again.status_code == 302
    assert flash(again)[-1:] == [
        "You sent this form twice: bug was renamed to defect the first time; nothing more done."
    ]
    late = other.post(world.url("labels/bug/rename/"), {**form, "idempotency_key": _key(theirs)})
    assert late.status_code == 302
    assert flash(late)[-1:] == [f"{world.member.username} renamed bug to defect already; nothing more done."]

    delete_page = text(client.get(world.url("labels/docs/delete/")))
    docs = {"version": _label(world, "docs").version, "idempotency_key": _key(delete_page)}
    assert client.post(world.url("labels/docs/delete/"), docs).status_code == 302
    twice = client.post(world.url("labels/docs/delete/"), docs)
    assert flash(twice)[-1:] == ["You sent this form twice: docs was deleted the first time; nothing more done."]

    for n in range(label_service.IN_REQUEST_MAX + 1):
        new_issue(world, f"Slow {n}", labels={"perf"})
    perf_version = _label(world, "perf").version
    perf_page = text(client.post(world.url("labels/perf/rename/"), {"to": "speed", "version": perf_version}))
    perf = {"to": "speed", "version": perf_version, "confirm": "on", "idempotency_key": _key(perf_page)}
    client.post(world.url("labels/perf/rename/"), perf)
    under_way = client.post(world.url("labels/perf/rename/"), perf)
    assert flash(under_way)[-1:] == [
        "You sent this form twice: perf is being renamed to speed since the first time; nothing more done."
    ]
    assert len(queued) == 1  # the second send queued nothing


def test_a_damaged_form_key_on_a_confirm_is_a_form_error_and_changes_nothing(world: World) -> None:
    new_issue(world, "Crash", labels={"bug"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    response = client.post(world.url("labels/bug/delete/"), {"version": version, "idempotency_key": "forged"})
    assert response.status_code == 200
    assert "This form is damaged" in text(response)
    assert _label(world, "bug").in_use


def test_two_sends_of_one_confirm_at_the_same_moment_are_one_change_and_the_second_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second send read the label before the first marked it (a double click): its mark is refused on the
    version, and it reads the label again and says "sent twice" instead of "changed since it was read" (409)."""
    new_issue(world, "Crash", labels={"bug"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    page = text(client.get(world.url("labels/bug/delete/")))
    form = {"version": version, "idempotency_key": _key(page)}
    real_get = ddb_labels.label_get
    before = real_get(world.slug, "bug")
    client.post(world.url("labels/bug/delete/"), form)  # the first send, done
    reads: list[str] = []

    def stale_once(tenant: str, name: str, **kw: Any) -> ddb_labels.Label | None:
        reads.append(name)
        return before if len(reads) <= 2 else real_get(tenant, name, **kw)  # the view's and the service's reads

    monkeypatch.setattr(ddb_labels, "label_get", stale_once)
    second = client.post(world.url("labels/bug/delete/"), form)
    assert second.status_code == 302
    assert flash(second)[-1:] == ["You sent this form twice: bug was deleted the first time; nothing more done."]


def test_a_change_started_before_its_starter_was_recorded_says_it_plainly(world: World) -> None:
    """A busy mark written before marks named who started it (no key, nobody): the old words, true either way."""
    new_issue(world, "Crash", labels={"bug"})
    ddb_labels.label_mark(
        world.slug, "bug", state=ddb_labels.REMOVING, expected_version=_label(world, "bug").version, total=1
    )
    client = world.client_for(world.member)
    again = client.post(world.url("labels/bug/delete/"), {"version": _label(world, "bug").version - 1})
    assert flash(again)[-1:] == ["bug is being deleted already (by this form, sent before, or another)."]


def test_an_edit_sent_twice_says_it_changed_nothing_and_a_real_conflict_is_still_a_409(world: World) -> None:
    """F19: the second send of one edit form (its version now one behind) found the label holding what it asks and
    answered 409 "somebody saved it since"; now it says nothing changed. Another colour meanwhile: still a 409."""
    client = world.client_for(world.member)
    client.post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    form = {"colour": "orange", "description": "  broken  ", "version": "1"}
    assert flash(client.post(world.url("labels/bug/edit/"), form))[-1:] == ["Label bug saved."]
    again = client.post(world.url("labels/bug/edit/"), form)
    assert again.status_code == 302
    assert flash(again)[-1:] == [
        "Label bug has this colour and description already (this form sent twice?); nothing changed."
    ]
    assert _label(world, "bug").version == 2
    other = client.post(world.url("labels/bug/edit/"), {**form, "colour": "blue"})
    assert other.status_code == 409
    assert (_label(world, "bug").colour, _label(world, "bug").version) == ("orange", 2)


def test_a_new_label_form_sent_twice_says_it_is_there_already_and_another_colour_is_a_form_error(
    world: World,
) -> None:
    """F19: the second send of the new-label form said "the team has a label needs-review already" as for someone
    else's label; with the very colour and description it asked for, it now says nothing changed."""
    client = world.client_for(world.member)
    form = {"name": "Needs-Review", "colour": "teal", "description": "PRs"}
    assert flash(client.post(world.url("labels/new/"), form))[-1:] == ["Label needs-review created."]
    again = client.post(world.url("labels/new/"), form)
    assert again.status_code == 302
    assert flash(again)[-1:] == [
        "Label needs-review is there already, with this colour and description (this form sent twice?); "
        "nothing changed."
    ]
    other = client.post(world.url("labels/new/"), {**form, "colour": "red"})
    assert other.status_code == 200
    assert "The team has a label needs-review already." in text(other)
    assert (_label(world, "needs-review").colour, _label(world, "needs-review").version) == ("teal", 1)


def test_the_confirm_pages_of_a_label_changed_already_say_what_became_of_it_instead_of_a_button_that_fails(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    """Back to a delete's confirm page after sending it (the browser asks for it again): it showed the button once
    more, with the gone label's version, and pressing it was a 409 "changed since you opened it"."""
    new_issue(world, "Docs", labels={"docs"})
    client = world.client_for(world.member)
    page = text(client.get(world.url("labels/docs/delete/")))
    client.post(
        world.url("labels/docs/delete/"), {"version": _label(world, "docs").version, "idempotency_key": _key(page)}
    )
    again = client.get(world.url("labels/docs/delete/"))
    assert again.status_code == 302
    assert flash(again)[-1:] == [f"docs was deleted by {world.member.username}; there is nothing left to change."]
    assert client.get(world.url("labels/docs/rename/")).status_code == 302
    assert client.get(world.url("labels/docs/edit/")).status_code == 302
    for n in range(label_service.IN_REQUEST_MAX + 1):
        new_issue(world, f"Slow {n}", labels={"perf"})
    perf = _label(world, "perf").version
    client.post(world.url("labels/perf/rename/"), {"to": "speed", "version": perf, "confirm": "on"})
    busy = client.post(world.url("labels/perf/rename/"), {"to": "quick", "version": perf})  # the first step again
    assert busy.status_code == 302
    assert flash(busy)[-1:] == [f"perf is being renamed to speed by {world.member.username}; its progress shows below."]
    assert client.get(world.url("labels/perf/delete/")).status_code == 302
    assert _label(world, "perf").renamed_to == "speed"
