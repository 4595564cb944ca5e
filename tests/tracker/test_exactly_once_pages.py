"""Creating forms are exactly once: the same rendered form sent twice gives the first result.

Each creating form carries a signed idempotency key made when it was rendered; a double click,
a retry or back-and-submit sends the same key and is shown what the first submission created,
with nothing new written. Then the same through the pages while DynamoDB loses 30% of write
answers (tests/dynamodb_faults.LostAnswers), with concurrent submitters. And a stale edit:
the other person's change is shown next to the editor's own input, and both are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import issues
from ddbmodels.attachments import ATTACHED
from tests import dynamodb_faults
from tests.tracker.attachment_helpers import items_of, upload_url
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, text
from tests.tracker.orders_helpers import orders_url, stored_orders
from tracker.forms.idempotency import DAMAGED


def test_an_issue_form_sent_twice_creates_one_issue_and_both_land_on_it(world: World) -> None:
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")
    form = {"title": "Double click", "priority": "medium", "idempotency_key": key}

    first, second = client.post(world.project_url("new/"), form), client.post(world.project_url("new/"), form)

    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == world.project_url("1/")
    assert flash(first) == ["Created WEB-1."]
    assert flash(second)[-1] == "This form was already submitted: it created WEB-1."
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == [1]


def test_each_rendering_of_the_form_has_its_own_key(world: World) -> None:
    client = world.client_for(world.member)
    keys = {hidden_value(client.get(world.project_url("new/")), "idempotency_key") for _ in range(3)}
    assert len(keys) == 3


def test_a_tampered_key_is_a_form_error_and_writes_nothing(world: World) -> None:
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")
    forged = key[:-1] + ("A" if key[-1] != "A" else "B")
    response = client.post(world.project_url("new/"), {"title": "Forged", "priority": "low", "idempotency_key": forged})
    assert response.status_code == 200
    assert DAMAGED in text(response).replace("&#x27;", "'")
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == []


def test_an_order_form_sent_twice_places_one_order(world: World) -> None:
    client = world.client_for(world.member)
    key = hidden_value(client.get(orders_url(world, "new/")), "idempotency_key")
    form = {"product": "seats", "quantity": 3, "delivery": "standard", "idempotency_key": key}

    first, second = client.post(orders_url(world, "new/"), form), client.post(orders_url(world, "new/"), form)

    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    number = int(re.findall(r"\d+", first["Location"])[-1])
    assert flash(second)[-1] == f"This form was already submitted: it placed order #{number}."
    assert len(stored_orders(world)) == 1


def test_an_attachment_form_sent_twice_attaches_one_file(issue_world: World, media: Path) -> None:
    client = issue_world.client_for(issue_world.member)
    key = hidden_value(client.get(issue_world.project_url("1/")), "idempotency_key")

    def send() -> str:
        response = client.post(
            upload_url(issue_world), {"file": SimpleUploadedFile("a.txt", b"once"), "idempotency_key": key}
        )
        assert response.status_code == 302
        return flash(response)[-1]

    assert send() == "Attached a.txt (4\xa0bytes)."
    assert send() == "This form was already submitted: a.txt was attached."
    (item,) = items_of(issue_world)
    assert (item.attachment_id, item.state) == (key.split(":")[0], ATTACHED)


@pytest.mark.django_db(transaction=True)
def test_concurrent_submitters_under_lost_answers_get_one_issue_each_and_see_their_own(
    make_world: Callable[..., World], lost_answers: dynamodb_faults.LostAnswers, settings: SettingsWrapper
) -> None:
    # Sessions in signed cookies: SQLite's in-memory test database refuses concurrent session
    # writes from threads ("session was deleted"), which is not what this test is about.
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
    dynamodb_faults.disarm_all()
    world = make_world()
    dynamodb_faults.lose(lost_answers)
    submitters = 16

    # Logging in and opening the form write to Django's database: done first, one at a time.
    clients = [world.client_for(world.member) for _ in range(submitters)]
    keys = [hidden_value(client.get(world.project_url("new/")), "idempotency_key") for client in clients]

    def submitter(i: int) -> tuple[str, str]:
        client = clients[i]
        form = {"title": f"Submitter {i}", "priority": "medium", "idempotency_key": keys[i]}
        for _ in range(8):  # a person submits again (the same form) until told a result
            response = client.post(world.project_url("new/"), form)
            if response.status_code == 302:
                page = text(client.get(response["Location"]))
                return response["Location"], page
            assert response.status_code == 503, response.status_code  # a clear 503 page, nothing else
        raise AssertionError("never told a result")

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(submitter, range(submitters)))

    assert lost_answers.lost > submitters // 4
    dynamodb_faults.disarm_all()
    numbers = sorted(int(location.rstrip("/").rsplit("/", 1)[1]) for location, _ in results)
    assert numbers == list(range(1, submitters + 1))
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == numbers
    for i, (_, page) in enumerate(results):  # each landed on its own issue
        assert f"Submitter {i}</h1>" in page


# ----------------------------------------------------------------------------------- stale edits


def test_a_stale_edit_keeps_both_changes_and_shows_the_conflict_side_by_side(world: World) -> None:
    new_issue(world, "Original", description="Original body", priority="low")
    first, second = world.client_for(world.owner), world.client_for(world.member)
    first_form, second_form = first.get(world.project_url("1/edit/")), second.get(world.project_url("1/edit/"))
    version, base = hidden_value(first_form, "version"), hidden_value(second_form, "base")

    # The first editor changes the priority and the title; the second the title and the body.
    saved = first.post(
        world.project_url("1/edit/"),
        {
            "title": "Owner's title",
            "description": "Original body",
            "priority": "urgent",
            "version": version,
            "base": hidden_value(first_form, "base"),
        },
    )
    assert saved.status_code == 302
    conflict = second.post(
        world.project_url("1/edit/"),
        {
            "title": "Member's title",
            "description": "Member's body",
            "priority": "low",
            "version": version,
            "base": base,
        },
    )

    assert conflict.status_code == 409
    page = text(conflict).replace("&#x27;", "'")
    # Their change to a field the member left alone is taken into the form, not reverted…
    assert "Priority: Urgent" in page
    assert re.search(r'<option value="urgent" selected>', page)
    # …the member's own change to another field is kept…
    assert "Member's body</textarea>" in page
    # …and the field both changed is shown both ways, the member's input in the form.
    assert re.search(r"<th>Title</th><td>Owner's title</td><td>Member's title</td>", page)
    assert 'value="Member\'s title"' in page or 'value="Member\'s title"' in page
    stored = load(world, 1)
    assert stored is not None
    assert (stored.title, stored.priority, stored.description) == ("Owner's title", "urgent", "Original body")

    # Saving the merged form now keeps both people's changes.
    retry = second.post(
        world.project_url("1/edit/"),
        {
            "title": "Member's title",
            "description": "Member's body",
            "priority": "urgent",
            "version": hidden_value(conflict, "version"),
            "base": hidden_value(conflict, "base"),
        },
    )
    assert retry.status_code == 302
    stored = load(world, 1)
    assert stored is not None
    assert (stored.title, stored.priority, stored.description) == ("Member's title", "urgent", "Member's body")
