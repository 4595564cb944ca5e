"""One error path: every domain error a view raises becomes the same page, for the site and the admin alike."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from django.urls import resolve

from ddbmodels import issues
from ddbmodels.attachments import AttachFailed
from ddbmodels.core.errors import (
    AlreadyExists,
    ChangedSinceRead,
    DomainError,
    InvalidInput,
    InvalidTransition,
    NotFound,
    SequenceContention,
    Unavailable,
)
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tracker.error_pages import ITEM_STALE, RETRY_AFTER_SECONDS, error_response
from tracker.exceptions import BadCursor

ISSUE = "/t/acme/p/WEB/7/"
ATTACHMENT = f"{ISSUE}attachments/01ARZ3NDEKTSV4RRFFQ69G5FAV/"


def page_for(path: str, error: Exception, query: str = "") -> HttpResponse:
    """What the error middleware answers when the view at ``path`` raises ``error``."""
    request: HttpRequest = RequestFactory().post(f"{path}?{query}" if query else path)
    request.resolver_match = resolve(path)
    request.user = AnonymousUser()
    response = error_response(request, error)
    assert response is not None
    return response


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NotFound("gone"), 404),
        (BadCursor("This page link is invalid."), 400),
        (InvalidInput("The file needs a name."), 400),
        (AlreadyExists("taken"), 409),
        (ChangedSinceRead("stale"), 409),
        (InvalidTransition("no"), 409),
        (SequenceContention("gave up"), 503),
        (AttachFailed("storage refused"), 503),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_each_domain_error_has_its_status(error: Exception, status: int) -> None:
    assert page_for(ISSUE, error).status_code == status


def test_a_bad_request_says_what_is_wrong() -> None:
    assert "This page link is invalid." in text(page_for("/t/acme/p/WEB/", BadCursor("This page link is invalid.")))


def test_every_503_says_when_to_retry() -> None:
    assert page_for(ISSUE, SequenceContention("gave up"))["Retry-After"] == str(RETRY_AFTER_SECONDS)


def test_a_refused_move_is_worded_by_its_page_with_a_link_back_to_the_item() -> None:
    response = page_for(f"{ISSUE}status/", InvalidTransition("no", current="closed", to="resolved"))
    assert "WEB-7 is Closed; it cannot move to Resolved." in text(response)
    assert 'href="/t/acme/p/WEB/7/"' in text(response)


def test_a_stale_change_says_what_it_is_now_and_what_was_asked() -> None:
    response = page_for(f"{ISSUE}status/", ChangedSinceRead("stale", current="in_progress", wanted="closed"))
    assert "This issue changed since you opened it; nothing was changed. Look again." in text(response)
    assert "<dt>Now</dt><dd>In progress</dd><dt>You asked for</dt><dd>Closed</dd>" in text(response)


def test_a_page_without_words_of_its_own_gets_the_generic_sentence() -> None:
    response = page_for("/t/acme/orders/new/", ChangedSinceRead("stale"))
    assert response.status_code == 409
    assert "This changed since you opened it; nothing was changed." in text(response)


def test_a_detach_of_a_detached_attachment_names_the_file_and_its_state() -> None:
    error = ChangedSinceRead("not attached", current="Detached", wanted="Detaching", filename="notes.txt")
    response = page_for(f"{ATTACHMENT}detach/", error)
    assert "notes.txt is already removed; nothing was changed." in text(response)
    assert "You asked for" not in text(response)  # the sentence already says what it is


def test_storage_refusing_an_upload_is_a_503_with_a_link_back_to_the_issue() -> None:
    response = page_for(f"{ISSUE}attachments/", AttachFailed("storage refused"))
    assert response.status_code == 503
    assert "The file could not be stored, so nothing was attached. Please try again." in text(response)
    assert 'href="/t/acme/p/WEB/7/"' in text(response)


def test_a_delete_that_goes_on_is_headed_in_its_own_words_and_other_503s_keep_theirs() -> None:
    going_on = Unavailable("deleting the issue goes on", heading="Deleting WEB-7 goes on", why="12 are left.")
    response = page_for(f"{ISSUE}delete/", going_on)
    assert response.status_code == 503
    assert "<h1>Deleting WEB-7 goes on</h1>" in text(response)
    assert "<title>Deleting WEB-7 goes on · Tracker</title>" in text(response)
    assert "12 are left." in text(response)
    throttled = text(page_for(f"{ISSUE}delete/", Unavailable("throttled")))  # DynamoDB busy: no words of its own
    assert "<h1>Unavailable</h1>" in throttled
    assert "<h1>Unavailable</h1>" in text(page_for(f"{ISSUE}attachments/", AttachFailed("storage refused")))
    assert "<h1>Busy</h1>" in text(page_for(f"{ISSUE}delete/", SequenceContention("gave up")))


def test_the_admin_gets_the_same_answers_in_its_own_chrome() -> None:
    response = page_for("/admin/ddb/tables/tracker-orders/item/delete/", ChangedSinceRead("stale"), query="key=abc")
    assert response.status_code == 409
    assert ITEM_STALE in text(response)
    assert 'href="/admin/ddb/tables/tracker-orders/item/?key=abc"' in text(response)
    assert 'id="site-name"' in text(response)  # the admin's header, not the site's


def test_an_error_outside_the_tree_is_not_turned_into_a_page() -> None:
    request = RequestFactory().get(ISSUE)
    request.resolver_match = resolve(ISSUE)
    assert error_response(request, DomainError("a bug")) is None
    assert error_response(request, ValueError("a bug")) is None


def test_a_form_answered_with_503_gets_retry_after_too(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    def always_busy(**_: object) -> None:
        raise SequenceContention("gave up")

    monkeypatch.setattr(issues, "issue_create", always_busy)
    response = world.client_for(world.member).post(world.project_url("new/"), {"title": "Busy", "priority": "low"})
    assert response.status_code == 503
    assert 'value="Busy"' in text(response)  # the form, with what was typed
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
