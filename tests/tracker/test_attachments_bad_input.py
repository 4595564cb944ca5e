"""Bad input on the attachment pages — too large, empty, a path for a name, a viewer, CSRF,
another tenant, a transition the state does not allow: each a clear answer that writes nothing."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import IO, Any

import pytest
from django.core.files.storage import filesystem
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from ddbmodels import attachments
from ddbmodels.attachments import DETACHED, DETACHING
from tests.tracker.attachment_helpers import (
    LIMIT,
    files_in,
    item_url,
    items_of,
    nothing_written,
    only_item,
    raw_upload,
    upload,
    upload_url,
)
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, load, new_issue, text


def test_a_file_over_the_limit_is_refused_with_413_and_nothing_is_stored(issue_world: World, media: Path) -> None:
    client = issue_world.client_for(issue_world.member)
    with nothing_written(media, issue_world):
        response = upload(client, issue_world, b"x" * (LIMIT + 1))
    assert response.status_code == 413
    assert response.context["form"].cut_off, "the upload handler stopped reading at the limit"
    assert "The file is larger than 2.0\xa0KB, the limit; nothing was attached." in text(response)
    assert items_of(issue_world) == []
    assert upload(client, issue_world, b"x" * LIMIT).status_code == 302  # the limit itself is fine


@pytest.mark.parametrize(
    ("content", "data", "message"),
    [
        pytest.param(b"", {}, "The submitted file is empty.", id="empty-file"),
        pytest.param(
            b"x", {"name": "../../etc/passwd"}, "A file name cannot contain “/” or “\\”", id="name-with-slash"
        ),
        pytest.param(b"x", {"name": "dir\\evil.txt"}, "A file name cannot contain", id="name-with-backslash"),
        pytest.param(b"x", {"name": "\x07\x1b\u202e"}, "The file needs a name.", id="name-of-control-characters"),
        pytest.param(b"x", {"name": "a\x00.txt"}, "Null characters are not allowed.", id="name-with-a-null"),
        pytest.param(b"x", {"name": "n" * 501}, "at most 500 characters", id="name-too-long-for-the-form"),
    ],
)
def test_bad_input_on_the_upload_form_is_a_400_form_error_and_stores_nothing(
    issue_world: World, media: Path, content: bytes, data: dict[str, str], message: str
) -> None:
    client = issue_world.client_for(issue_world.member)
    with nothing_written(media, issue_world):
        response = upload(client, issue_world, content, **data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert "Nothing was attached." in text(response)


def test_a_post_without_a_file_asks_for_one(issue_world: World, media: Path) -> None:
    with nothing_written(media, issue_world):
        response = issue_world.client_for(issue_world.member).post(upload_url(issue_world), {"name": "x.txt"})
    assert response.status_code == 400
    assert "Choose a file to attach." in text(response)


def test_a_path_in_the_uploaded_file_name_never_leaves_the_attachments_folder(issue_world: World, media: Path) -> None:
    # Django keeps only the last path component of an upload's own name; a path typed into
    # "Save as" is refused (above). Either way the file lands in its attachment's own folder.
    response = raw_upload(issue_world.client_for(issue_world.member), issue_world, "../../../etc/passwd", b"root:x")
    assert response.status_code == 302
    item = only_item(issue_world)
    assert item.filename == "passwd"
    assert files_in(media) == [f"attachments/{issue_world.slug}/WEB/1/{item.attachment_id}/passwd"]


def test_a_viewer_uploading_gets_403_and_nothing_is_stored(issue_world: World, media: Path) -> None:
    with nothing_written(media, issue_world):
        response = upload(issue_world.client_for(issue_world.viewer), issue_world)
    assert response.status_code == 403


def test_an_upload_without_the_csrf_token_is_403_and_stores_nothing(issue_world: World, media: Path) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(issue_world.member)
    with nothing_written(media, issue_world):
        response = upload(client, issue_world)
    assert response.status_code == 403
    assert "CSRF" in text(response)


def test_a_detach_without_the_csrf_token_is_403_and_changes_nothing(issue_world: World, media: Path) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world)
    client = Client(enforce_csrf_checks=True)
    client.force_login(issue_world.member)
    with nothing_written(media, issue_world):
        assert client.post(item_url(issue_world, only_item(issue_world), "detach/")).status_code == 403


def test_the_upload_form_on_the_issue_page_carries_a_csrf_token_that_works(issue_world: World, media: Path) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(issue_world.member)
    page = text(client.get(issue_world.project_url("1/")))
    form = page[page.index('enctype="multipart/form-data"') :]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token
    response = upload(client, issue_world, csrfmiddlewaretoken=token.group(1))
    assert response.status_code == 302
    assert len(files_in(media)) == 1


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        pytest.param("detached", "notes.txt is already removed; nothing was changed.", id="detach-a-detached-one"),
        pytest.param(
            "detaching", "notes.txt is already being removed; nothing was changed.", id="detach-a-detaching-one"
        ),
    ],
)
def test_detaching_an_attachment_that_is_not_attached_is_refused_and_changes_nothing(
    issue_world: World, media: Path, setup: str, message: str
) -> None:
    client = issue_world.client_for(issue_world.member)
    upload(client, issue_world)
    item = only_item(issue_world)
    attachments.attachment_detach_begin(item, by="someone")
    if setup == "detached":
        attachments.attachment_detach_complete(item)
    with nothing_written(media, issue_world):
        response = client.post(item_url(issue_world, item, "detach/"))
    assert response.status_code == 409  # the error page says what it is now, and links back to the issue
    assert message in text(response)
    assert f'href="{issue_world.project_url("1/")}"' in text(response)
    assert only_item(issue_world).state == (DETACHED if setup == "detached" else DETACHING)


def test_a_viewer_detaching_gets_403_and_the_file_stays(issue_world: World, media: Path) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world)
    with nothing_written(media, issue_world):
        response = issue_world.client_for(issue_world.viewer).post(
            item_url(issue_world, only_item(issue_world), "detach/")
        )
    assert response.status_code == 403


def test_another_tenants_attachment_is_a_404_by_every_route(
    issue_world: World, other_world: World, media: Path
) -> None:
    upload(issue_world.client_for(issue_world.member), issue_world, b"secret of A")
    theirs = only_item(issue_world)
    new_issue(other_world, "B's issue")
    intruder = other_world.client_for(other_world.owner)
    with nothing_written(media, issue_world, other_world):
        answers = [
            intruder.get(item_url(issue_world, theirs)),  # A's URL: B's owner is no member of A
            intruder.post(item_url(issue_world, theirs, "detach/")),
            upload(intruder, issue_world),
            # B's own tenant and issue, A's attachment id: not in B's issue, so not found
            intruder.get(other_world.project_url(f"1/attachments/{theirs.attachment_id}/")),
            intruder.post(other_world.project_url(f"1/attachments/{theirs.attachment_id}/detach/")),
        ]
    assert [a.status_code for a in answers] == [404] * 5
    assert all(NOT_FOUND_TEXT in text(a) for a in answers)


@pytest.mark.parametrize(
    "suffix",
    [
        pytest.param("1/attachments/01ARZ3NDEKTSV4RRFFQ69G5FAV/", id="unknown-id"),
        pytest.param("1/attachments/not-an-id/", id="malformed-id"),
        pytest.param("2/attachments/", id="upload-to-a-missing-issue"),
    ],
)
def test_missing_things_are_404(issue_world: World, media: Path, suffix: str) -> None:
    client = issue_world.client_for(issue_world.member)
    with nothing_written(media, issue_world):
        response = (
            client.post(issue_world.project_url(suffix))
            if suffix.endswith("s/")
            else client.get(issue_world.project_url(suffix))
        )
    assert response.status_code == 404


def test_a_tombstoned_issue_takes_no_uploads_and_serves_no_downloads(issue_world: World, media: Path) -> None:
    client = issue_world.client_for(issue_world.owner)
    upload(client, issue_world)
    item = only_item(issue_world)
    issue = load(issue_world, 1)
    client.post(issue_world.project_url("1/delete/"), {"version": int(issue.version)})
    assert upload(client, issue_world).status_code == 404
    assert client.get(item_url(issue_world, item)).status_code == 404


def test_the_upload_url_takes_only_post(issue_world: World, media: Path) -> None:
    assert issue_world.client_for(issue_world.member).get(upload_url(issue_world)).status_code == 405


class DiskFull:
    """A file whose disk fills up: half of the first chunk reaches the disk, then ENOSPC."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file

    def write(self, chunk: bytes) -> int:
        self.file.write(chunk[: len(chunk) // 2])
        self.file.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        self.file.close()


def test_when_storage_fails_the_upload_is_a_503_and_nothing_is_left_behind(
    issue_world: World, media: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The disk fills up in the middle of the file: the service, the attach flow and Django's own
    # FileSystemStorage run for real, and a partial file is on disk when the error comes.
    partial: list[str] = []

    class FillingOs:
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def fdopen(self, fd: int, mode: str = "rb", *args: Any) -> DiskFull:
            partial.append(os.readlink(f"/proc/self/fd/{fd}"))
            return DiskFull(os.fdopen(fd, mode, *args))

    monkeypatch.setattr(filesystem, "os", FillingOs())
    response = upload(issue_world.client_for(issue_world.member), issue_world)
    assert response.status_code == 503
    assert "nothing was attached" in text(response)
    assert len(partial) == 1  # a file was begun on disk…
    assert files_in(media) == []  # …and removed again: nothing is left behind
    item = only_item(issue_world)  # DynamoDB: the attach was begun, then marked failed
    assert (item.state, item.reason) == ("Failed", "storage error: OSError")


class _CountingBody:
    """A multipart body of ``size`` bytes made up as it is read, counting what the server read of it."""

    BOUNDARY = "----tracker-big-boundary"

    def __init__(self, size: int) -> None:
        head = (
            f'--{self.BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        self.head, self.size, self.tail = head, size, f"\r\n--{self.BOUNDARY}--\r\n".encode()
        self.length = len(head) + size + len(self.tail)
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        left = self.length - self.read_bytes
        want = left if size is None or size < 0 else min(size, left)
        out = bytearray()
        while len(out) < want:
            position = self.read_bytes + len(out)
            head, body, tail = self.head, self.size, self.tail
            if position < len(head):
                out += head[position : position + want - len(out)]
            elif position < len(head) + body:
                out += b"x" * min(want - len(out), len(head) + body - position)
            else:
                start = position - len(head) - body
                out += tail[start : start + want - len(out)]
        self.read_bytes += len(out)
        return bytes(out)

    def readline(self, size: int = -1) -> bytes:  # Django's LimitedStream wants one; the parser reads blocks
        return self.read(size)


def test_a_viewers_50_mb_upload_is_refused_before_its_body_is_read(issue_world: World, media: Path) -> None:
    # CSRF enforced as in production: before the fix its check parsed the whole body (all 50 MB read,
    # the file part spooled up to the limit), and only then was the viewer's role checked.
    client = Client(enforce_csrf_checks=True)
    client.force_login(issue_world.viewer)
    body = _CountingBody(50 * 1024 * 1024)
    with nothing_written(media, issue_world):
        response = client.generic(
            "POST",
            upload_url(issue_world),
            content_type=f"multipart/form-data; boundary={_CountingBody.BOUNDARY}",
            CONTENT_LENGTH=str(body.length),
            **{"wsgi.input": body},
        )
    assert response.status_code == 403
    assert "Viewers cannot attach files." in text(response)
    assert body.read_bytes == 0, f"{body.read_bytes:,} bytes of the viewer's upload were read"


def test_a_members_upload_with_more_than_one_file_part_is_a_400_and_stores_nothing(
    issue_world: World, media: Path
) -> None:
    client = issue_world.client_for(issue_world.member)
    files = [SimpleUploadedFile(f"part{n}.txt", b"x" * 10) for n in range(3)]
    with nothing_written(media, issue_world):
        response = client.post(upload_url(issue_world), {"file": files})
    assert response.status_code == 400
    assert items_of(issue_world) == []
    assert upload(client, issue_world).status_code == 302  # one file is fine
