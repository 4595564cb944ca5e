"""Creates by API under lost DynamoDB answers are each recorded once (R22-1).

30 % of DynamoDB's write answers are lost (botocore retries them; ddbmodels tells its own committed write by its
token). On top of that, one key in three has its create commit and then fail with Unavailable before anything is
recorded, as when the answer and the token check both fail (the reviewer's repro): a 503. The program resends it
with the same Idempotency-Key, gets its 201 replay, and the replay records what the first request could not. So
with an endpoint registered every created issue has exactly one ``issue.created`` delivery and one "created"
event in its history, however its requests went.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from ddbmodels import events
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import issue_stream
from ddbmodels.events import WEBHOOK_EVENTS, Kind
from tests import dynamodb_faults
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tests.tracker.webhooks.test_deliveries import register
from tracker.services import issues as services
from tracker.services.webhooks import emit

LOST_ANSWERS_SEED = 31  # test_issue_writes' sequence of losses
KEYS = 80


def all_deliveries(endpoint: ddb_webhooks.EndpointItem) -> list[dict[str, Any]]:
    found, before = [], None
    while True:
        items, before = ddb_webhooks.delivery_page(endpoint.tenant, endpoint.id, before=before, size=100)
        found += [json.loads(item.payload) for item in items]
        if before is None:
            return found


@pytest.mark.django_db(transaction=True)
def test_each_issue_created_under_lost_answers_is_delivered_once_and_in_its_history_once(
    make_world: Callable[..., World],
    api_client: ApiClientFactory,
    lost_answers: dynamodb_faults.LostAnswers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dynamodb_faults.disarm_all()
    world = make_world()
    endpoint = register(world, "http://127.0.0.1:9/hook")
    monkeypatch.setattr(emit, "send_later", lambda *args, **kwargs: True)  # the sending is not under test
    client = api_client(world)
    url = f"/api/v1/teams/{world.slug}/projects/WEB/issues"
    client.get(f"{url}/1")  # the token's last-used time written before the threads (SQLite, one writer)
    real, failed, lock = services.issues.issue_create, set(), threading.Lock()

    def commits_then_fails(**fields: Any) -> Any:
        claimed = real(**fields)
        key = str(fields["title"]).removeprefix("Issue ")  # the API hands the service a key of its own
        with lock:
            first = int(key.rpartition("-")[2]) % 3 == 0 and key not in failed
            failed.add(key)
        if first:
            raise Unavailable("committed, then no answer")
        return claimed

    monkeypatch.setattr(services.issues, "issue_create", commits_then_fails)
    dynamodb_faults.lose(lost_answers)
    resent: Counter[str] = Counter()

    def submit(key: str) -> int:
        for _ in range(8):  # a program retries a 503 with the same key
            answer = client.post_json(url, {"title": f"Issue {key}"}, headers={"Idempotency-Key": key})
            if answer.status_code != 503:
                return int(json.loads(answer.content)["number"])
            resent[key] += 1
        raise AssertionError(f"{key}: still 503 after 8 tries")

    try:
        with ThreadPoolExecutor(8) as pool:
            numbers = list(pool.map(submit, [f"key-{i}" for i in range(KEYS)]))
    finally:
        dynamodb_faults.disarm_all()
    assert sorted(numbers) == list(range(1, KEYS + 1))
    assert lost_answers.lost > 10
    assert {f"key-{i}" for i in range(0, KEYS, 3)} <= set(resent)  # answered 503 after committing, then resent

    delivered = Counter(d["data"]["issue"]["number"] for d in all_deliveries(endpoint))
    assert {d["type"] for d in all_deliveries(endpoint)} == {WEBHOOK_EVENTS[Kind.ISSUE_CREATED]}
    assert delivered == Counter(range(1, KEYS + 1))  # each issue once, none twice
    for number in numbers:
        stream = issue_stream(world.slug, "WEB", number)
        created = [e for e in events.stream_events_all(stream=stream) if e.kind == Kind.ISSUE_CREATED]
        assert len(created) == 1, (number, created)
