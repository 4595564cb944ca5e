"""Attachment pages end to end: upload, list, download, detach (bad input: test_attachments_bad_input)."""

from __future__ import annotations

from pathlib import Path

import pytest
from botocore.exceptions import EndpointConnectionError

from ddbmodels import attachments
from ddbmodels.attachments import ATTACHED, DETACHED
from tests.tracker.attachment_helpers import (
    files_in,
    item_url,
    only_item,
    upload,
)
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, text

# ------------------------------------------------------------------------------------ happy path


def test_a_member_attaches_a_file_and_the_issue_page_lists_it_with_a_download_link(
    issue_world: World, media: Path
) -> None:
    client = issue_world.client_for(issue_world.member)
    response = upload(client, issue_world, b"quarterly numbers", "Q3 report.txt")
    assert response.status_code == 302
    assert response["Location"] == issue_world.project_url("1/")
    assert flash(response) == ["Attached Q3 report.txt (17\xa0bytes)."]

    item = only_item(issue_world)
    assert (item.state, item.filename, int(item.size), item.attached_by) == (
        ATTACHED,
        "Q3 report.txt",
        17,
        issue_world.member.username,
    )
    assert item.in_flight_key is None
    assert files_in(media) == [f"attachments/{issue_world.slug}/WEB/1/{item.attachment_id}/Q3_report.txt"]
    page = text(client.get(issue_world.project_url("1/")))
    assert f'href="{item_url(issue_world, item)}" download>Q3 report.txt</a>' in page
    assert page.index("<h2>Attachments</h2>") < page.index("<h2>Activity</h2>")


def test_the_download_streams_the_file_as_an_attachment_that_cannot_script_the_site(issue_world: World) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world, b"<script>alert(1)</script>", "page.html")
    item = only_item(issue_world)
    viewer = issue_world.client_for(issue_world.viewer)  # viewers are members of the tenant: they may read
    response = viewer.get(item_url(issue_world, item))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"<script>alert(1)</script>"  # type: ignore[attr-defined]
    assert response["Content-Disposition"] == 'attachment; filename="page.html"'
    assert response["Content-Security-Policy"] == "sandbox"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_save_as_name_is_used_and_a_unicode_name_survives_the_download(issue_world: World) -> None:
    client = issue_world.client_for(issue_world.owner)
    assert upload(client, issue_world, b"x", "upload.bin", name="Résumé 日本.txt").status_code == 302
    item = only_item(issue_world)
    assert item.filename == "Résumé 日本.txt"
    assert item.storage_name.endswith("/Resume_.txt")
    response = client.get(item_url(issue_world, item))
    assert "filename*=utf-8''R%C3%A9sum%C3%A9%20%E6%97%A5%E6%9C%AC.txt" in response["Content-Disposition"]


def test_a_member_detaches_a_file_and_storage_and_the_list_forget_it(issue_world: World, media: Path) -> None:
    client = issue_world.client_for(issue_world.member)
    upload(client, issue_world)
    item = only_item(issue_world)
    response = client.post(item_url(issue_world, item, "detach/"))
    assert response.status_code == 302
    assert flash(response)[-1] == "Detached notes.txt."
    assert (only_item(issue_world).state, only_item(issue_world).detached_by) == (DETACHED, issue_world.member.username)
    assert files_in(media) == []
    assert "No files attached." in text(client.get(issue_world.project_url("1/")))
    assert client.get(item_url(issue_world, item)).status_code == 404  # detached: gone


def test_an_attachment_in_flight_is_listed_without_a_link(issue_world: World) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world)
    attachments.attachment_detach_begin(only_item(issue_world), by="someone")
    page = text(issue_world.client_for(issue_world.member).get(issue_world.project_url("1/")))
    assert 'notes.txt <span class="status in-flight">Removing…</span>' in page
    assert "/detach/" not in page
    assert (
        issue_world.client_for(issue_world.member).get(item_url(issue_world, only_item(issue_world))).status_code == 404
    )


def test_a_viewer_sees_the_list_but_no_upload_form_or_detach_button(issue_world: World) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world)
    page = text(issue_world.client_for(issue_world.viewer).get(issue_world.project_url("1/")))
    assert ">notes.txt</a>" in page
    assert 'enctype="multipart/form-data"' not in page
    assert "Detach" not in page


def test_the_issue_page_still_shows_when_dynamodb_cannot_list_the_attachments(
    issue_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def away(**_: object) -> list:
        raise EndpointConnectionError(endpoint_url="http://dynamodb")

    monkeypatch.setattr("tracker.selectors.issue_page.attachment_list", away)
    response = issue_world.client_for(issue_world.member).get(issue_world.project_url("1/"))
    assert response.status_code == 200
    assert "Attachments cannot be shown right now." in text(response)


def test_a_defect_in_listing_the_attachments_fails_the_page_instead_of_hiding_the_panel(
    issue_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The template tag read the list behind ``except Exception``: a bug looked like an outage.
    def buggy(**_: object) -> list:
        raise TypeError("a defect, not an outage")

    monkeypatch.setattr("tracker.selectors.issue_page.attachment_list", buggy)
    with pytest.raises(TypeError, match="a defect"):
        issue_world.client_for(issue_world.member).get(issue_world.project_url("1/"))


def test_the_watch_button_hides_when_dynamodb_cannot_read_the_watchers(
    issue_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = text(issue_world.client_for(issue_world.member).get(issue_world.project_url("1/")))
    assert "0 watching" in page or "1 watching" in page

    def away(**_: object) -> object:
        raise EndpointConnectionError(endpoint_url="http://dynamodb")

    monkeypatch.setattr("tracker.selectors.issue_page.watch_state", away)
    response = issue_world.client_for(issue_world.member).get(issue_world.project_url("1/"))
    assert response.status_code == 200
    assert "watching</span>" not in text(response)
    assert "Attachments" in text(response)
