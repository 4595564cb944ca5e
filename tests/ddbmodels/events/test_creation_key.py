"""A creation's event is put once under its deterministic key (``creation_key``), however often it is recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ddbmodels import events
from ddbmodels.core import capacity
from ddbmodels.events.reads import stream_events_all
from tests.conftest import FixedClock

CREATED = datetime(2026, 11, 30, 23, 59, 59, 999000, tzinfo=UTC)  # the last millisecond of a month


def test_the_key_is_the_creation_s_time_and_token_and_sorts_as_any_event_key() -> None:
    key = events.creation_key(CREATED, "9f86d081884c7d659a2feaa0c55ad015")
    assert key == events.creation_key(CREATED, "9f86d081884c7d659a2feaa0c55ad015")
    assert key != events.creation_key(CREATED, "another request")
    time, _, suffix = key.partition("#")
    assert (time, len(suffix)) == ("2026-11-30T23:59:59.999Z", 8)
    assert events.sort_key_time(key) == CREATED


@pytest.mark.ddblocal
def test_an_event_put_twice_under_its_key_is_one_event_in_its_creation_s_period(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    fixed_clock(CREATED + timedelta(hours=2))  # recorded again in the next month (a replay the day after)
    key = events.creation_key(CREATED, "token")
    put = {"stream": "acme#WEB#1", "kind": "issue.created", "tenant": "acme", "period": "month", "key": key}
    first = events.event_put(**put, actor="ann", data={"title": "First"})
    with capacity.measure() as meter:
        again = events.event_put(**put, actor="ann", data={"title": "Renamed since"})
    assert again.t == first.t == key
    assert again.table == first.table == events.period_table_name("2026-11")  # the creation's month
    assert (meter.requests, meter.conditional_failures) == (1, 1)  # one put, refused (AWS charges it 1 WCU)
    [stored] = stream_events_all(stream="acme#WEB#1")
    assert (stored.t, stored.data) == (key, {"title": "First"})  # the first kept, nothing overwritten
