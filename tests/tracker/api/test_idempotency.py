"""Idempotency-Key for the API's POSTs (tracker/api/idempotency.py): replays, 422, 409, Redis down, kept answers.

``run_once`` and ``answer_once`` are driven here with request objects and the real issue service, as a router
calls them; the routers' own tests (test_issue_writes.py and the areas') go through HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.http import HttpRequest
from django.test import RequestFactory

from ddbmodels import issues as ddb_issues
from ddbmodels.issues import IssueItem
from ddbmodels.patterns.sequences import Claimed
from tests.tracker.conftest import World
from tracker import optional_redis
from tracker.api import idempotency
from tracker.models import Membership
from tracker.services import issues as issue_services
from tracker.services import replays

PATH = "/api/v1/teams/t/projects/WEB/issues"


def post(body: Any, key: str | None = "k-1", path: str = PATH, raw: bytes | None = None) -> HttpRequest:
    headers = {} if key is None else {"Idempotency-Key": key}
    data = raw if raw is not None else json.dumps(body)
    return RequestFactory().post(path, data=data, content_type="application/json", headers=headers)


def membership(world: World, role: str = "member") -> Membership:
    user = getattr(world, role)
    return Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)


def stored(world: World) -> list[IssueItem]:
    pk = f"{world.slug}#{world.project_key}"
    return [i for i in ddb_issues.IssueItem.query(pk, consistent_read=True) if isinstance(i, IssueItem)]


def create_issue(request: HttpRequest, who: Membership, world: World) -> Any:
    """What a router does: the service with the key and fingerprint, and one renderer for every answer."""
    fields = json.loads(request.body)
    project = ddb_issues.project_get(tenant=world.slug, key=world.project_key)
    assert project is not None

    def create(key: str, fingerprint: str) -> Claimed[IssueItem]:
        return issue_services.issue_create_claim(
            membership=who, project=project, title=fields["title"], idempotency_key=key, fingerprint=fingerprint
        )

    def replay(key: str, fingerprint: str) -> Claimed[IssueItem] | None:
        found = replays.issue_replay(
            membership=who, project_key=world.project_key, idempotency_key=key, fingerprint=fingerprint
        )
        return None if found is None else found.claimed

    def first_answer(claimed: Claimed[IssueItem]) -> dict[str, Any]:
        return {"number": claimed.number, "title": fields["title"], "created_at": claimed.item.created_at}

    return idempotency.run_once(
        request,
        membership=who,
        kind=f"issue#{world.project_key}",
        replay=replay,
        create=create,
        first_answer=first_answer,
    )


def problem_code(response: Any) -> str:
    assert response["Content-Type"] == "application/problem+json"
    return str(json.loads(response.content)["code"])


def test_a_post_without_a_key_or_with_a_bad_one_is_a_400_and_creates_nothing(world: World) -> None:
    who = membership(world)
    missing = create_issue(post({"title": "A"}, key=None), who, world)
    assert missing.status_code == 400
    assert problem_code(missing) == "idempotency_key_missing"
    for bad in ("x" * 256, "a b", '"unclosed', "é"):
        answer = create_issue(post({"title": "A"}, key=bad), who, world)
        assert answer.status_code == 400, bad
        assert problem_code(answer) == "idempotency_key_invalid"
    assert stored(world) == []


def test_the_same_key_replays_the_first_answer_byte_for_byte_even_after_a_change(world: World) -> None:
    who = membership(world)
    first = create_issue(post({"title": "Login fails"}), who, world)
    assert first.status_code == 201
    assert "Idempotent-Replayed" not in first
    issue = stored(world)[0]
    issue_services.issue_update(  # somebody edits it: the replay still answers the first answer
        membership=who,
        issue=issue,
        expected_version=int(issue.version),
        title="Edited",
        description="",
        priority="high",
        assignee=None,
        labels=(),
    )
    again = create_issue(post({"title": "Login fails"}), who, world)
    assert again.status_code == 201
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    quoted = create_issue(post({"title": "Login fails"}, key='"k-1"'), who, world)  # an sf-string: the same key
    assert quoted.content == first.content
    assert len(stored(world)) == 1


def test_the_same_json_with_other_spacing_and_key_order_is_the_same_request(world: World) -> None:
    who = membership(world)
    first = create_issue(post(None, raw=b'{"title": "A", "x": [1, 2]}'), who, world)
    again = create_issue(post(None, raw=b'{ "x":[1,2],\n "title":"A" }'), who, world)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content


def test_the_same_key_with_another_body_or_path_is_a_422_and_writes_nothing(world: World) -> None:
    who = membership(world)
    assert create_issue(post({"title": "One"}), who, world).status_code == 201
    other_body = create_issue(post({"title": "Two"}), who, world)
    assert other_body.status_code == 422
    assert problem_code(other_body) == "idempotency_key_reused"
    other_path = create_issue(post({"title": "One"}, path=PATH + "?x=1"), who, world)
    assert other_path.status_code == 422
    assert [i.title for i in stored(world)] == ["One"]


def test_keys_are_per_person(world: World) -> None:
    assert create_issue(post({"title": "Member's"}), membership(world, "member"), world).status_code == 201
    owners = create_issue(post({"title": "Owner's"}), membership(world, "owner"), world)
    assert owners.status_code == 201  # the owner's "k-1" is not the member's
    assert sorted(i.title for i in stored(world)) == ["Member's", "Owner's"]


def test_a_key_in_flight_is_a_409_with_retry_after_and_is_let_go_after(world: World) -> None:
    who = membership(world)
    seen: list[int] = []

    def nothing(key: str, fingerprint: str) -> None:
        return None  # the key made nothing yet

    def create(key: str, fingerprint: str) -> dict[str, int]:
        inner = idempotency.run_once(
            post({"title": "A"}), membership=who, kind="issue#WEB", replay=nothing, create=create, first_answer=dict
        )
        seen.append(inner.status_code)
        return {"n": 1}

    outer = idempotency.run_once(
        post({"title": "A"}), membership=who, kind="issue#WEB", replay=nothing, create=create, first_answer=dict
    )
    assert outer.status_code == 201
    assert seen == [409]  # the same key while the first request runs
    lock = f"api-key:{who.user_id}:{idempotency.digest('k-1')}"
    assert optional_redis.client().get(lock) is None  # its holder let it go


def test_another_holders_lock_is_left_alone(world: World) -> None:
    who = membership(world)
    lock = f"api-key:{who.user_id}:{idempotency.digest('k-1')}"
    optional_redis.client().set(lock, "somebody-else", px=30_000)
    try:
        answer = create_issue(post({"title": "A"}), who, world)
        assert answer.status_code == 409
        assert problem_code(answer) == "idempotency_key_in_flight"
        assert answer["Retry-After"] == "1"
        assert optional_redis.client().get(lock) == b"somebody-else"
        assert stored(world) == []
    finally:
        optional_redis.client().delete(lock)


def test_with_redis_down_the_transaction_still_creates_once(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    who = membership(world)

    class Down:
        def set(self, *args: Any, **kwargs: Any) -> None:
            raise redis.exceptions.ConnectionError("down")

        def eval(self, *args: Any) -> None:  # the release after a SET that failed: down too
            raise redis.exceptions.ConnectionError("down")

    monkeypatch.setattr(optional_redis, "client", lambda url=None: Down())
    try:
        first = create_issue(post({"title": "A"}), who, world)
        assert optional_redis.paused()
        again = create_issue(post({"title": "A"}), who, world)
    finally:
        optional_redis.resume()
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert len(stored(world)) == 1


def test_a_lock_whose_set_reply_was_lost_is_let_go_after_the_request(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R22-10: Redis took the SET NX but its reply was lost (a timeout): the request ran unlocked, and it still lets
    its own lock go (a compare-and-delete on its token), so the client's retry is its replay, not 30 s of 409s."""
    who = membership(world)
    real = optional_redis.client()

    class LostReply:
        def set(self, *args: Any, **kwargs: Any) -> None:
            real.set(*args, **kwargs)  # Redis holds the lock now...
            raise redis.exceptions.TimeoutError("Timeout reading from socket")  # ...and its answer never came

        def eval(self, *args: Any) -> Any:
            return real.eval(*args)

    monkeypatch.setattr(optional_redis, "client", lambda url=None: LostReply())
    try:
        first = create_issue(post({"title": "A"}), who, world)
    finally:
        optional_redis.resume()  # the retry may reach a process that never saw Redis fail
        monkeypatch.undo()
    assert first.status_code == 201
    lock = f"api-key:{who.user_id}:{idempotency.digest('k-1')}"
    assert real.get(lock) is None
    again = create_issue(post({"title": "A"}), who, world)
    assert (again.status_code, again["Idempotent-Replayed"]) == (201, "true")
    assert again.content == first.content


def keep(who: Membership, body: Any, runs: list[int], answer: tuple[int, dict[str, Any]] = (200, {"marked": 3})) -> Any:
    def run() -> tuple[int, dict[str, Any]]:
        runs.append(1)
        return answer

    return idempotency.answer_once(
        post(body, path="/api/v1/teams/t/inbox/read"), membership=who, kind="inbox-read", run=run
    )


def test_answer_once_runs_once_and_answers_the_first_answer_again(world: World) -> None:
    who, runs = membership(world), list[int]()
    first = keep(who, {}, runs)
    again = keep(who, {}, runs, answer=(200, {"marked": 0}))
    assert len(runs) == 1
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.content == first.content == b'{"marked": 3}'
    assert again["Idempotent-Replayed"] == "true"
    other = keep(who, {"all": True}, runs)
    assert other.status_code == 422
    assert problem_code(other) == "idempotency_key_reused"
    assert len(runs) == 1


def test_answer_once_keeps_no_refusal_and_no_answer_when_the_operation_fails(world: World) -> None:
    who, runs = membership(world), list[int]()
    refused = keep(who, {}, runs, answer=(409, {"code": "pending"}))
    assert refused.status_code == 409
    assert keep(who, {}, runs).status_code == 200  # the same key tries again
    assert len(runs) == 2

    def boom() -> tuple[int, dict[str, Any]]:
        raise RuntimeError("failed")

    request = post({}, key="k-2", path="/api/v1/teams/t/inbox/read")
    with pytest.raises(RuntimeError):
        idempotency.answer_once(request, membership=who, kind="inbox-read", run=boom)
    assert keep_again(who, runs) == 200


def keep_again(who: Membership, runs: list[int]) -> int:
    request = post({}, key="k-2", path="/api/v1/teams/t/inbox/read")
    return int(idempotency.answer_once(request, membership=who, kind="inbox-read", run=lambda: (200, {})).status_code)


def test_the_fingerprint_names_method_path_and_canonical_body() -> None:
    base = idempotency.fingerprint(post({"a": 1, "b": [1, 2]}))
    assert base == idempotency.fingerprint(post(None, raw=b'{"b":[1,2],"a":1}'))
    assert base != idempotency.fingerprint(post({"a": 2, "b": [1, 2]}))
    assert base != idempotency.fingerprint(post({"a": 1, "b": [1, 2]}, path=PATH + "/1"))
    assert len(base) == 64


def test_the_header_is_documented_with_its_pattern() -> None:
    header: Callable[[], Any] = idempotency.key_header
    param = header()
    assert param.alias == "Idempotency-Key"
    assert not param.is_required()
