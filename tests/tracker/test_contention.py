"""When every retry loses the race for a number, the user keeps their input and gets a clear answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.issues import CollectionItem
from ddbmodels.patterns import sequences
from tests.dynamodb_faults import Refusal
from tests.tracker.conftest import World
from tests.tracker.helpers import ddb_state


def test_a_create_that_never_wins_a_number_says_so_and_writes_nothing(
    world: World, dynamodb_refuses: Callable[..., Refusal], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every conditional write of a number is refused as if another writer had just taken it: the
    # sort-key sequence re-reads, backs off and retries for real, then gives up. An unlabelled issue
    # is one conditional PutItem (its words are the search engine's, not entries in a transaction).
    lost = dynamodb_refuses(
        "PutItem",
        table=CollectionItem.Meta.table_name,
        code="ConditionalCheckFailedException",
        status=400,
    )
    waits: list[float] = []
    # The backoff's waits are recorded instead of slept (put_next's own ``sleep`` default).
    monkeypatch.setitem(sequences.put_next.__kwdefaults__, "sleep", waits.append)
    before = ddb_state(world.slug)

    with capacity.measure() as meter:
        response = world.client_for(world.member).post(world.project_url("new/"), {"title": "Busy", "priority": "low"})

    assert response.status_code == 503
    assert "very busy" in response.content.decode()
    assert 'value="Busy"' in response.content.decode()
    assert len(lost.refused) == sequences.BACKOFF.attempts  # every attempt lost its race…
    assert len(waits) == sequences.BACKOFF.attempts - 1  # …with a backoff before each retry
    assert meter.conditional_failures == sequences.BACKOFF.attempts
    # DynamoDB holds exactly what it held: no issue, no number taken.
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == []
    assert ddb_state(world.slug) == before
