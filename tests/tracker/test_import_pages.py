"""An owner uploads a GitHub export for a new project: the form, its refusals, one queued job, the job, its progress."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import kombu.exceptions
import pytest
from botocore.exceptions import ClientError
from django.core import signing
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from moto import mock_aws
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels import jobs
from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, hidden_value, text
from tests.tracker.import_helpers import expected_numbers, export_bytes, imports_storage, stored_files
from tracker import tasks
from tracker.forms import idempotency
from tracker.selectors.imports import ImportState, import_get, import_job_name
from tracker.services import imports as import_services

pytestmark = pytest.mark.ddblocal
COUNT = 24  # 24 entries: 6 pull requests (4, 8, …, 24, the last one too), 18 issues, 6 with a comment
ISSUES = expected_numbers(COUNT)
Queued = list[dict[str, Any]]


@pytest.fixture
def imports_dir(settings: SettingsWrapper, tmp_path: Path) -> Path:
    return imports_storage(settings, tmp_path / "imports")


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> Queued:
    """Every import the pages queue (not sent to the broker: the tests run the task themselves)."""
    calls: Queued = []

    def record(*, args: list[Any], task_id: str, **_: Any) -> None:
        calls.append({"args": args, "task_id": task_id})

    monkeypatch.setattr(tasks.import_github_export, "apply_async", record)
    return calls


def form_data(client: Client, world: World, *, key: str = "MOVED", data: bytes | None = None) -> dict[str, Any]:
    """The form as its page renders it (with its idempotency key), filled in."""
    page = client.get(world.url("imports/new/"))
    assert page.status_code == 200
    return {
        "idempotency_key": hidden_value(page, "idempotency_key"),
        "key": key,
        "name": "Moved in",
        "file": SimpleUploadedFile("issues.json", export_bytes(COUNT) if data is None else data),
    }


def post(client: Client, world: World, fields: dict[str, Any]) -> Any:
    upload = fields["file"]
    upload.seek(0)
    return client.post(world.url("imports/new/"), fields)


def import_id_of(response: Any, world: World) -> str:
    assert response.status_code == 302, text(response)[:2000]
    match = re.fullmatch(rf"/t/{world.slug}/imports/([0-9A-Z]{{26}})/", response["Location"])
    assert match, response["Location"]
    return match.group(1)


def run_task(world: World, import_id: str) -> dict[str, Any]:
    state = import_get(tenant=world.slug, import_id=import_id)
    assert state is not None
    outcome = tasks.import_github_export.apply(args=[world.slug, import_id], task_id=state.task_id)
    assert outcome.successful(), outcome.traceback
    result: dict[str, Any] = outcome.get()
    return result


def rewrite(world: World, import_id: str, **fields: Any) -> ImportState:
    """Set fields of the import's record, as a run that died at some point leaves it; the record."""
    state = import_get(tenant=world.slug, import_id=import_id)
    assert state is not None
    for name, value in fields.items():
        setattr(state, name, value)
    jobs.checkpoint_save(import_job_name(world.slug, import_id), state.token, state.dump())
    return state


def minutes_ago(n: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=n)).isoformat(timespec="seconds")


def assert_refused(response: Any, message: str, *, status: int = 200) -> None:
    assert response.status_code == status
    assert message in text(response)


# ------------------------------------------------------------------------------ who may import


def test_only_owners_see_the_link_on_the_project_list(world: World) -> None:
    link = world.url("imports/new/")
    assert link in text(world.client_for(world.owner).get(world.url()))
    for person in (world.member, world.viewer):
        assert link not in text(world.client_for(person).get(world.url()))


def test_members_and_viewers_get_403_on_get_and_post(world: World, imports_dir: Path, queued: Queued) -> None:
    owner_form = form_data(world.client_for(world.owner), world)
    for person in (world.member, world.viewer):
        client = world.client_for(person)
        assert client.get(world.url("imports/new/")).status_code == 403
        assert post(client, world, owner_form).status_code == 403
    assert queued == []
    assert stored_files(imports_dir) == []
    assert ddb_issues.project_get(tenant=world.slug, key="MOVED") is None


def test_another_teams_import_is_a_404(world: World, other_world: World, imports_dir: Path, queued: Queued) -> None:
    owner = world.client_for(world.owner)
    import_id = import_id_of(post(owner, world, form_data(owner, world)), world)
    stranger = other_world.client_for(other_world.owner)
    for suffix in (f"imports/{import_id}/", f"imports/{import_id}/status.json"):
        assert stranger.get(world.url(suffix)).status_code == 404  # not a member of the team
        mine = stranger.get(other_world.url(suffix))  # the same id under the stranger's own team
        assert mine.status_code == 404
    assert NOT_FOUND_TEXT in text(stranger.get(other_world.url(f"imports/{import_id}/")))
    assert owner.get(world.url("imports/NOT-A-ULID/")).status_code == 404


# ------------------------------------------------------------------------------ what the form refuses


def test_a_file_over_the_limit_is_a_form_error_and_nothing_is_kept(
    world: World, imports_dir: Path, queued: Queued, settings: SettingsWrapper
) -> None:
    settings.IMPORT_MAX_BYTES = 1024
    client = world.client_for(world.owner)
    response = post(client, world, form_data(client, world))  # ≈ 7 KB
    assert_refused(response, "The file is larger than 1.0\xa0KB, the limit; nothing was imported.", status=413)
    assert queued == []
    assert stored_files(imports_dir) == []
    assert ddb_issues.project_get(tenant=world.slug, key="MOVED") is None


def test_an_upload_with_more_than_one_file_part_is_a_400_and_nothing_is_kept(
    world: World, imports_dir: Path, queued: Queued
) -> None:
    # The form has one file input; Django's own cap would parse up to 100 parts (issue 20, finding 7).
    client = world.client_for(world.owner)
    fields = form_data(client, world)
    fields["file"] = [SimpleUploadedFile(f"part{n}.json", export_bytes(COUNT)) for n in range(3)]
    response = client.post(world.url("imports/new/"), fields)
    assert response.status_code == 400
    assert queued == []
    assert stored_files(imports_dir) == []
    assert ddb_issues.project_get(tenant=world.slug, key="MOVED") is None


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"{not json", "is not JSON"),
        (b'{"number": 1}', "is not a list of issues"),
        (b'[{"title": "no number"}]', "This is not a GitHub issues export we can read, so nothing was imported"),
        (b'[{"number": 1, "title": "x", "created_at": "yesterday"}]', "is not a github export"),
        (b'[{"number": 1, "pull_request": {}}]', "The file holds no issues"),
        (b"\xff\xfe\x00", "is not JSON"),
    ],
)
def test_a_malformed_file_is_a_form_error_and_nothing_is_written(
    world: World, imports_dir: Path, queued: Queued, data: bytes, says: str
) -> None:
    client = world.client_for(world.owner)
    fields = form_data(client, world, data=data)
    with capacity.measure() as meter:
        response = post(client, world, fields)
    assert_refused(response, says)
    assert response.context["form"].errors["file"]
    assert sum(n for op, n in meter.by_operation.items() if op in capacity.WRITE_OPERATIONS) == 0
    assert queued == []
    assert stored_files(imports_dir) == []


def test_a_key_the_team_already_has_is_a_form_error(world: World, imports_dir: Path, queued: Queued) -> None:
    client = world.client_for(world.owner)
    response = post(client, world, form_data(client, world, key="web"))
    assert_refused(response, "already has a project with this key; choose a new one.")
    assert response.context["form"].errors["key"]
    assert queued == []
    assert stored_files(imports_dir) == []
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="WEB") == []


# ------------------------------------------------------------------------------ one import per form


def test_a_double_submit_queues_one_import(world: World, imports_dir: Path, queued: Queued) -> None:
    client = world.client_for(world.owner)
    fields = form_data(client, world)
    first = import_id_of(post(client, world, fields), world)
    again = post(client, world, fields)
    assert import_id_of(again, world) == first
    assert len(queued) == 1
    assert queued[0]["args"] == [world.slug, first]
    assert stored_files(imports_dir) == [f"{world.slug}/{first}.json"]
    page = client.get(again["Location"])
    assert "This form was already submitted: here is its import." in text(page)


def test_a_queue_that_does_not_answer_is_a_503_and_the_retry_says_it_did_not_start(
    world: World, imports_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(**_: Any) -> None:
        raise kombu.exceptions.OperationalError("Redis is gone")

    monkeypatch.setattr(tasks.import_github_export, "apply_async", down)
    client = world.client_for(world.owner)
    fields = form_data(client, world)
    assert post(client, world, fields).status_code == 503
    assert stored_files(imports_dir) == []
    retry = post(client, world, fields)
    page = client.get(f"/t/{world.slug}/imports/{import_id_of(retry, world)}/")
    assert "The job queue was not answering, so the import did not start; nothing was imported." in text(page)
    assert ddb_issues.project_get(tenant=world.slug, key="MOVED") is None


# ------------------------------------------------------------------------------ the job and its progress


def test_the_progress_page_and_its_json_before_the_job_starts(world: World, imports_dir: Path, queued: Queued) -> None:
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    status = client.get(world.url(f"imports/{import_id}/status.json"))
    assert status.json() == {
        "status": "queued",
        "finished": False,
        "stage": "",
        "done": 0,
        "total": 0,
        "percent": 0,
        "error": "",
        "summary": {},
    }
    page = text(client.get(world.url(f"imports/{import_id}/")))
    assert "<strong>18</strong> issues" in page
    assert "<strong>6</strong> pull requests skipped" in page
    assert "<strong>6</strong> comments" in page
    assert "Waiting for a worker to start the import" in page
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in page
    assert "tracker/import.js" in page
    assert "<script>" not in page
    assert " onclick=" not in page


def test_the_job_imports_the_export_numbered_as_in_it_and_deletes_the_file(
    world: World, imports_dir: Path, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    assert len(stored_files(imports_dir)) == 1
    holders: list[str | None] = []
    real_run = import_services.load.run

    def run_seeing_the_project(*args: Any, **kwargs: Any) -> Any:
        project = ddb_issues.project_get(tenant=world.slug, key="MOVED")
        holders.append(project.importing if project else "missing")
        return real_run(*args, **kwargs)

    monkeypatch.setattr(import_services.load, "run", run_seeing_the_project)
    result = run_task(world, import_id)
    assert holders == [import_job_name(world.slug, import_id)]  # closed to new issues while it wrote

    summary = result["result"]["summary"]
    assert result["status"] == "done"
    assert result["result"]["status"] == "done"
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == ISSUES  # numbers kept, PRs skipped
    assert (summary["issues"], summary["pull_requests"], summary["comments"]) == (18, 6, 6)
    assert summary["written"] == summary["items"]
    assert summary["wcu"] == summary["minimum_wcu"] > 0  # DynamoDB Local charges the floor exactly
    assert summary["next_number"] == 24
    assert stored_files(imports_dir) == []

    project = ddb_issues.project_get(tenant=world.slug, key="MOVED")
    assert project is not None
    assert project.name == "Moved in"
    assert project.created_by == world.owner.username
    assert project.importing is None  # open again
    assert project.issue_counts is not None
    assert project.issue_counts.as_dict() == {"open": 15, "in_progress": 0, "resolved": 0, "closed": 3}
    third = ddb_issues.issue_get(tenant=world.slug, project_key="MOVED", number=3)
    assert third is not None
    assert third.title == "Moved widget 3"
    assert third.assignee == "someone-outside"
    stream = ddb_comments.issue_stream(world.slug, "MOVED", 3)
    assert [c.body for c in ddb_comments.comment_page(stream=stream, size=10).comments] == ["seen"]
    created = ddb_issues.issue_create(tenant=world.slug, project_key="MOVED", title="After", reporter="x")
    assert created.item.number == 24  # the top imported issue is 23 (24 was a pull request): max + 1

    status = client.get(world.url(f"imports/{import_id}/status.json")).json()
    assert status["status"] == "done"
    assert status["finished"] is True
    assert status["done"] == status["total"] == summary["items"]
    assert status["percent"] == 100
    page = text(client.get(world.url(f"imports/{import_id}/")))
    assert f'href="/t/{world.slug}/p/MOVED/"' in page
    assert "<strong>18</strong> issues and <strong>6</strong> comments saved in MOVED" in page
    assert "6 pull requests left out" in page
    assert "MOVED-24" in page
    assert "tracker/import.js" not in page
    assert "http-equiv" not in page


def test_a_retried_job_writes_nothing_twice(world: World, imports_dir: Path, queued: Queued) -> None:
    client = world.client_for(world.owner)
    fields = form_data(client, world)
    import_id = import_id_of(post(client, world, fields), world)
    upload = fields["file"]
    upload.seek(0)
    data = upload.read()
    run_task(world, import_id)
    # As a worker killed after the last batch but before recording "done" leaves it: running, file still there.
    state = rewrite(world, import_id, status="running", stage="writing", summary={})
    # … and the project still held by it (it is released only after "done" is recorded)
    ddb_issues.project_import_start(tenant=world.slug, key="MOVED", job=import_job_name(world.slug, import_id))
    (imports_dir / state.upload).parent.mkdir(parents=True, exist_ok=True)
    (imports_dir / state.upload).write_bytes(data)

    with capacity.measure() as meter:
        again = run_task(world, import_id)["result"]["summary"]
    assert meter.by_operation.get("BatchWriteItem", 0) == 0
    assert (again["written"], again["resumed_after"]) == (0, again["items"])
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == ISSUES
    assert stored_files(imports_dir) == []
    # and once done, another delivery of the task only makes sure the file is gone
    with capacity.measure() as meter:
        run_task(world, import_id)
    assert meter.by_operation.get("BatchWriteItem", 0) == 0


def test_a_project_taken_meanwhile_stops_the_job_with_a_true_message(
    world: World, imports_dir: Path, queued: Queued
) -> None:
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    ddb_issues.project_create(tenant=world.slug, key="MOVED", name="Mine", created_by=world.member.username)
    result = run_task(world, import_id)["result"]
    assert result["status"] == "failed"
    assert result["error"] == "A project MOVED was created by someone else meanwhile; nothing was imported."
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == []
    assert stored_files(imports_dir) == []
    page = text(client.get(world.url(f"imports/{import_id}/")))
    assert "A project MOVED was created by someone else meanwhile; nothing was imported." in page


def test_on_s3_the_upload_waits_under_the_imports_prefix_and_is_deleted_after(
    world: World, queued: Queued, settings: SettingsWrapper
) -> None:
    # moto serves S3 only; DynamoDB calls still go to DynamoDB Local.
    with mock_aws(config={"core": {"service_whitelist": ["s3"]}}):
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="tracker-imports-test")
        settings.STORAGES = {
            **settings.STORAGES,
            "imports": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {"bucket_name": "tracker-imports-test", "location": "archive/imports"},
            },
        }
        client = world.client_for(world.owner)
        import_id = import_id_of(post(client, world, form_data(client, world)), world)
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket="tracker-imports-test")["Contents"]]
        assert keys == [f"archive/imports/{world.slug}/{import_id}.json"]
        assert run_task(world, import_id)["result"]["status"] == "done"
        assert s3.list_objects_v2(Bucket="tracker-imports-test").get("Contents", []) == []
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == ISSUES


def test_the_imports_storage_follows_the_archive_setting(tmp_path: Path) -> None:
    """A folder of its own by default; the archive's bucket under <prefix>/imports once ARCHIVE_S3_BUCKET is set."""
    show = "from django.conf import settings; import json; print(json.dumps(settings.STORAGES['imports']))"
    base = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test", "IMPORTS_DIR": str(tmp_path)}
    base.pop("ARCHIVE_S3_BUCKET", None)

    def storage(**extra: str) -> dict[str, Any]:
        code = f"import django; django.setup(); {show}"
        out = subprocess.run([sys.executable, "-c", code], env={**base, **extra}, capture_output=True, check=True)
        answer: dict[str, Any] = json.loads(out.stdout.decode().strip().splitlines()[-1])
        return answer

    assert storage() == {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(tmp_path)},
    }
    on_s3 = storage(ARCHIVE_S3_BUCKET="my-tracker-archive", ARCHIVE_S3_PREFIX="tracker-archive")
    assert on_s3["BACKEND"] == "storages.backends.s3.S3Storage"
    assert on_s3["OPTIONS"]["bucket_name"] == "my-tracker-archive"
    assert on_s3["OPTIONS"]["location"] == "tracker-archive/imports"  # inside the IAM policy's archive prefix


def test_an_upload_that_never_got_queued_says_so_after_ten_minutes(
    world: World, imports_dir: Path, queued: Queued
) -> None:
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    # as a web process that died between taking the file and queueing it leaves it
    rewrite(world, import_id, status="uploading", queued_at=minutes_ago(9))
    status_url = world.url(f"imports/{import_id}/status.json")
    assert client.get(status_url).json()["status"] == "uploading"
    assert "Receiving the file" in text(client.get(world.url(f"imports/{import_id}/")))

    rewrite(world, import_id, queued_at=minutes_ago(11))
    status = client.get(status_url).json()
    assert (status["status"], status["finished"]) == ("not_started", True)
    assert status["error"] == "The upload did not finish, so the import did not start; nothing was imported."
    assert status["error"] in text(client.get(world.url(f"imports/{import_id}/")))


# ------------------------------------------------------------------------------ retries, lost answers, races


def test_a_retried_job_never_writes_into_a_project_someone_else_created_meanwhile(
    world: World, imports_dir: Path, queued: Queued
) -> None:
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)
    # A first run saved its stage and died before creating the project; a member then made MOVED.
    rewrite(world, import_id, status="running", stage="creating the project")
    ddb_issues.project_create(tenant=world.slug, key="MOVED", name="Mine", created_by=world.member.username)
    ddb_issues.issue_create(tenant=world.slug, project_key="MOVED", title="Member's own issue", reporter="m")

    result = run_task(world, import_id)["result"]

    assert result["status"] == "failed"
    assert "created by someone else meanwhile" in result["error"]
    mine = ddb_issues.issue_get(tenant=world.slug, project_key="MOVED", number=1)
    assert mine is not None
    assert (mine.title, ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED")) == ("Member's own issue", [1])


def test_a_project_create_whose_answer_was_lost_is_the_imports_own(
    world: World, imports_dir: Path, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore retried the put after a lost answer; the retry was refused by the put's own item.
    real_create = ddb_issues.project_create

    def lost_answer(**kwargs: Any) -> Any:
        real_create(**kwargs)
        raise AlreadyExists("project MOVED already exists")

    monkeypatch.setattr(ddb_issues, "project_create", lost_answer)
    client = world.client_for(world.owner)
    import_id = import_id_of(post(client, world, form_data(client, world)), world)

    result = run_task(world, import_id)["result"]

    assert result["status"] == "done"
    assert ddb_issues.issue_numbers(tenant=world.slug, project_key="MOVED") == ISSUES
    project = ddb_issues.project_get(tenant=world.slug, key="MOVED")
    assert project is not None
    assert (project.name, project.importing) == ("Moved in", None)


def test_a_task_whose_import_is_gone_does_nothing_and_makes_no_job_item(world: World, imports_dir: Path) -> None:
    gone = "01M84P1YFG2HSY7C3MARZGGN9M"
    outcome = tasks.import_github_export.apply(args=[world.slug, gone])
    assert outcome.successful()
    assert outcome.get()["status"] == "gone"
    assert jobs.job_state(import_job_name(world.slug, gone)) is None
    assert jobs.tenant_job_names(world.slug) == []


def test_a_resubmit_whose_first_submit_died_after_its_claim_is_told_to_reload(
    world: World, imports_dir: Path, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = world.client_for(world.owner)
    fields = form_data(client, world)
    key = hidden_value(client.get(world.url("imports/new/")), "idempotency_key")  # any signed key will do
    fields["idempotency_key"] = key
    claim_id = signing.Signer(salt=idempotency.SALT).unsign(key)
    jobs.fence_acquire(import_services.claim_name(world.slug, claim_id), world.owner.username, tenant=world.slug)
    monkeypatch.setattr(import_services, "_wait_for_record", lambda *_, **__: False)

    response = post(client, world, fields)

    assert response.status_code == 503
    assert import_services.FORM_LOST in text(response)
    assert queued == []
    assert stored_files(imports_dir) == []


def test_a_message_the_broker_refused_but_sent_leaves_the_import_to_its_worker(
    world: World, imports_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def sent_then_refused(*, args: list[Any], **_: Any) -> None:
        jobs.fence_acquire(import_job_name(*args), "worker")  # a worker took the import's next token
        raise kombu.exceptions.OperationalError("the answer was lost")

    monkeypatch.setattr(tasks.import_github_export, "apply_async", sent_then_refused)
    client = world.client_for(world.owner)

    import_id = import_id_of(post(client, world, form_data(client, world)), world)

    state = import_get(tenant=world.slug, import_id=import_id)
    assert state is not None
    assert state.status == "queued"
    assert len(stored_files(imports_dir)) == 1  # the worker's file, not deleted under it


def test_a_storage_that_refuses_the_file_is_a_503_saying_so(
    world: World, imports_dir: Path, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(*_: Any, **__: Any) -> str:
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "PutObject")

    storage = import_services._storage()
    monkeypatch.setattr(type(storage), "save", denied)
    client = world.client_for(world.owner)
    fields = form_data(client, world)

    assert post(client, world, fields).status_code == 503
    retry = post(client, world, fields)
    page = text(client.get(f"/t/{world.slug}/imports/{import_id_of(retry, world)}/"))
    assert "The file could not be stored, so the import did not start; nothing was imported." in page
    assert queued == []
