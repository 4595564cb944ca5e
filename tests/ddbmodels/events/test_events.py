"""Activity events (ddbmodels.events): period ids, tables made on demand, streams, the sharded day index."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

import ddbmodels
from ddbmodels import events
from ddbmodels.core import capacity, connection
from ddbmodels.core.tables import describe_table
from ddbmodels.events.model import PeriodClosed
from ddbmodels.events.reads import stream_events, tenant_day_events
from ddbmodels.events.writes import event_put
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import period_id
from tests.conftest import FixedClock

UTC_NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def table_exists(name: str) -> bool:
    return describe_table(name) is not None


# ---------------------------------------------------------------------------- periods (no DynamoDB)


@pytest.mark.parametrize(
    ("kind", "when", "expected"),
    [
        ("month", UTC_NOON, "2026-11"),
        ("week", UTC_NOON, "2026-W47"),
        ("day", UTC_NOON, "2026-11-22"),
        ("month", datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "2026-12"),
        ("month", datetime(2027, 1, 1, tzinfo=UTC), "2027-01"),
        ("day", datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC), "2026-12-31"),
        ("week", datetime(2026, 12, 31, tzinfo=UTC), "2026-W53"),  # 2026 starts on a Thursday: 53 ISO weeks
        ("week", datetime(2027, 1, 3, 23, 0, tzinfo=UTC), "2026-W53"),  # Sunday: still last year's week 53
        ("week", datetime(2027, 1, 4, tzinfo=UTC), "2027-W01"),
        ("week", datetime(2024, 12, 30, tzinfo=UTC), "2025-W01"),  # a December Monday in next year's week 1
        ("week", datetime(2021, 1, 1, tzinfo=UTC), "2020-W53"),
    ],
)
def test_period_ids_follow_the_calendar_and_iso_weeks_across_year_boundaries(
    kind: time_series.PeriodKind, when: datetime, expected: str
) -> None:
    assert period_id(kind, when) == expected
    parsed_kind, start = time_series.parse_period_id(expected)
    assert (parsed_kind, start) == (kind, time_series.period_start(kind, when))


def test_a_time_in_another_zone_is_filed_under_its_utc_period() -> None:
    tokyo_morning = datetime(2026, 12, 1, 8, 0, tzinfo=timezone(timedelta(hours=9)))  # 2026-11-30 23:00 UTC
    new_york_evening = datetime(2026, 11, 30, 20, 0, tzinfo=timezone(timedelta(hours=-5)))  # 2026-12-01 01:00 UTC
    assert period_id("month", tokyo_morning) == "2026-11"
    assert period_id("day", new_york_evening) == "2026-12-01"


def test_period_bounds_are_half_open_and_shift_across_years() -> None:
    assert time_series.period_bounds("week", UTC_NOON) == (
        datetime(2026, 11, 16, tzinfo=UTC),
        datetime(2026, 11, 23, tzinfo=UTC),
    )
    assert time_series.period_bounds("month", datetime(2026, 12, 5, tzinfo=UTC)) == (
        datetime(2026, 12, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )
    assert time_series.period_shift("month", datetime(2026, 1, 15, tzinfo=UTC), -1) == datetime(2025, 12, 1, tzinfo=UTC)
    assert time_series.period_shift("month", datetime(2026, 11, 15, tzinfo=UTC), -23) == datetime(
        2024, 12, 1, tzinfo=UTC
    )
    assert time_series.period_shift("day", datetime(2026, 12, 31, 9, tzinfo=UTC), 1) == datetime(2027, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("text", ["2026-13", "2025-W53", "2026-W54", "2026-W00", "2026-02-30", "26-11", "2026-11-"])
def test_period_ids_that_cannot_exist_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a period id"):
        time_series.parse_period_id(text)


def test_naive_datetimes_and_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        period_id("month", datetime(2026, 11, 22, 12, 0))  # naive: the point of the test
    with pytest.raises(ValueError, match="period kind"):
        period_id("year", UTC_NOON)  # type: ignore[arg-type]


def test_table_names_carry_the_prefix_and_the_period_id() -> None:
    prefix = ddbmodels.current().table_prefix
    assert events.events_table_name("week", UTC_NOON) == f"{prefix}events-2026-W47"
    assert events.parse_events_table_name(f"{prefix}events-2026-11-22") == (
        "day",
        "2026-11-22",
        datetime(2026, 11, 22, tzinfo=UTC),
    )
    assert events.parse_events_table_name(f"{prefix}events-junk") is None
    assert events.parse_events_table_name(f"{prefix}x-events-2026-11") is None


def test_sort_keys_sort_by_time_and_are_unique_within_a_millisecond() -> None:
    keys = [events.new_sort_key(UTC_NOON + timedelta(microseconds=us)) for us in (0, 400, 999, 1000, 250_000)]
    assert keys[0][:24] == "2026-11-22T12:00:00.000Z"
    assert len(set(keys)) == len(keys)
    assert sorted(keys, key=lambda k: k[:24]) == keys
    assert events.sort_key_time(keys[-1]) == UTC_NOON + timedelta(milliseconds=250)


def test_the_shard_of_a_stream_is_calculated_the_same_way_every_time() -> None:
    shards = [events.shard_of(f"acme#WEB#{n}", 4) for n in range(200)]
    assert set(shards) == {1, 2, 3, 4}
    assert shards == [events.shard_of(f"acme#WEB#{n}", 4) for n in range(200)]
    assert min(shards.count(s) for s in range(1, 5)) > 30  # roughly even


# ---------------------------------------------------------------------------- DynamoDB Local


@pytest.mark.ddblocal
def test_event_put_creates_the_table_of_its_period_on_demand_and_costs_two_wcu(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    name = events.events_table_name("day", fixed_clock(UTC_NOON))
    assert not table_exists(name)

    event = {"stream": "acme#WEB#1", "tenant": "acme", "period": "day"}  # at the clock's time
    first = event_put(**event, kind="issue.created", actor="ann")
    with capacity.measure() as meter:
        second = event_put(**event, kind="issue.status", actor="bob", data={"to": "closed"})

    assert table_exists(name)
    assert first.table == second.table == name
    assert (meter.wcu, dict(meter.by_operation)) == (2.0, {"PutItem": 1})  # the table and the by_day index
    assert second.data == {"to": "closed"}
    assert second.at.tzinfo is UTC


@pytest.mark.ddblocal
def test_stream_events_reads_the_current_and_previous_periods_newest_first(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    now = fixed_clock(UTC_NOON)
    yesterday = now - timedelta(days=1)
    stream, other = "acme#WEB#7", "acme#WEB#8"
    moments = [yesterday + timedelta(milliseconds=i) for i in range(3)] + [now - timedelta(milliseconds=1), now]
    for i, when in enumerate(moments):
        event_put(
            stream=stream, kind="issue.edited", actor="ann", tenant="acme", when=when, period="day", data={"i": i}
        )
    event_put(stream=other, kind="issue.created", actor="ann", tenant="acme", when=now, period="day")

    newest_first = stream_events(stream=stream, period="day", consistent=True)
    assert [e.data["i"] for e in newest_first] == [4, 3, 2, 1, 0]
    assert {e.table for e in newest_first} == {
        events.events_table_name("day", now),
        events.events_table_name("day", yesterday),
    }
    assert all(e.stream == stream for e in newest_first)
    assert len(newest_first) == 5

    with capacity.measure() as meter:
        two = stream_events(stream=stream, period="day", limit=2)
    assert [e.t for e in two] == [e.t for e in newest_first[:2]]
    assert meter.by_operation["Query"] == 1  # the current table had enough: the previous one is not read

    older = stream_events(stream=stream, period="day", limit=2, before=two[-1].t)
    assert [e.t for e in older] == [e.t for e in newest_first[2:4]]


@pytest.mark.ddblocal
def test_stream_events_after_reads_the_next_events_oldest_first_one_page_a_table(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    now = fixed_clock(UTC_NOON)
    yesterday = now - timedelta(days=1)
    stream = "acme#WEB#7"
    moments = [yesterday + timedelta(milliseconds=i) for i in range(3)] + [now - timedelta(milliseconds=1), now]
    put = [
        event_put(
            stream=stream, kind="issue.edited", actor="ann", tenant="acme", when=when, period="day", data={"i": i}
        )
        for i, when in enumerate(moments)
    ]
    event_put(stream="acme#WEB#8", kind="issue.created", actor="ann", tenant="acme", when=now, period="day")

    with capacity.measure() as meter:
        after = events.stream_events_after(stream=stream, after=put[0].t, limit=50, period="day")
    assert [e.data["i"] for e in after] == [1, 2, 3, 4]  # strictly after, oldest first, across both tables
    assert meter.by_operation["Query"] == 2  # one page a table
    with capacity.measure() as meter:
        two = events.stream_events_after(stream=stream, after=put[0].t, limit=2, period="day")
    assert [e.data["i"] for e in two] == [1, 2]
    assert meter.by_operation["Query"] == 1  # yesterday's table had enough: today's is not read
    assert events.stream_events_after(stream=stream, after=put[-1].t, limit=5, period="day") == []
    with pytest.raises(ValueError, match="limit"):
        events.stream_events_after(stream=stream, after=put[0].t, limit=0, period="day")


@pytest.mark.ddblocal
def test_a_missing_period_table_reads_as_empty(own_prefix: str) -> None:
    assert stream_events(stream="acme#WEB#1", periods=["2020-01", "2019-12"]) == []
    assert tenant_day_events(tenant="acme", day=date(2020, 1, 5)) == []


@pytest.mark.ddblocal
def test_event_get_reads_one_event_by_its_key_in_its_periods_table(own_prefix: str, fixed_clock: FixedClock) -> None:
    now = fixed_clock(UTC_NOON)
    put = event_put(stream="acme#WEB#1", kind="issue.edited", actor="ann", tenant="acme", period="day", data={"i": 1})
    with capacity.measure() as meter:
        got = events.event_get(stream="acme#WEB#1", t=put.t, period="day")
    assert got == put
    assert (meter.rcu, dict(meter.by_operation), dict(meter.by_pattern)["events.get"].calls) == (1.0, {"GetItem": 1}, 1)
    assert events.event_get(stream="acme#WEB#2", t=put.t, period="day") is None  # another stream's key
    a_year_ago = (now - timedelta(days=365)).strftime("%Y-%m-%dT%H:%M:%S.000Z") + "#0badc0de"
    assert events.event_get(stream="acme#WEB#1", t=a_year_ago, period="day") is None  # no such table: none
    for no_period in ("0001-11-26T04:46:17.965Z#34e39529", "2026-13-01T00:00:00.000Z#ab", "not-a-key"):
        with pytest.raises(ValueError, match=r"period|time data|not a"), capacity.measure() as refused:
            events.event_get(stream="acme#WEB#1", t=no_period, period="day")
        assert refused.requests == 0  # refused before any request


@pytest.mark.ddblocal
def test_event_put_refuses_to_recreate_a_table_older_than_the_previous_period(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    long_ago = fixed_clock(UTC_NOON) - timedelta(days=2)  # the day before yesterday: closed
    with pytest.raises(PeriodClosed):
        event_put(stream="acme#WEB#1", kind="issue.edited", actor="ann", tenant="acme", when=long_ago, period="day")
    assert not table_exists(events.events_table_name("day", long_ago))


@pytest.mark.ddblocal
def test_event_data_keeps_its_types(own_prefix: str) -> None:
    data = {
        "count": 3,
        "ratio": Decimal("0.125"),
        "float": 0.1,
        "title": "Überweisung – 日本語 🎉",
        "flag": True,
        "nothing": None,
        "labels": {"bug", "ui"},
        "list": [1, "two", {"three": 3}],
        "raw": b"\x00\xff",
    }
    event_put(stream="acme#WEB#2", kind="issue.edited", actor="ann", tenant="acme", data=data)

    (stored,) = stream_events(stream="acme#WEB#2", consistent=True)
    assert stored.data == {**data, "float": Decimal("0.1")}


@pytest.mark.ddblocal
def test_the_sharded_day_index_spreads_a_days_writes_and_reads_them_back_in_order(
    own_prefix: str, fixed_clock: FixedClock
) -> None:
    day = fixed_clock(UTC_NOON).replace(hour=0)
    streams = [f"acme#WEB#{n}" for n in range(40)]
    written = [
        event_put(
            stream=stream, kind="issue.created", actor="ann", tenant="acme", when=day + timedelta(seconds=i), shards=4
        )
        for i, stream in enumerate(streams)
    ]
    event_put(stream="other#WEB#1", kind="issue.created", actor="zed", tenant="other", when=day, shards=4)

    client = connection.client()
    per_shard = {
        n: client.query(
            TableName=written[0].table,
            IndexName=events.BY_DAY_INDEX,
            KeyConditionExpression="d = :d",
            ExpressionAttributeValues={":d": {"S": events.day_key("acme", day.date(), n)}},
            Select="COUNT",
        )["Count"]
        for n in range(1, 5)
    }
    assert sum(per_shard.values()) == 40
    assert all(count >= 5 for count in per_shard.values()), per_shard  # every shard takes a share
    assert per_shard == {n: sum(events.shard_of(s, 4) == n for s in streams) for n in range(1, 5)}

    with capacity.measure() as meter:
        everything = tenant_day_events(tenant="acme", day=day.date(), shards=4)
    assert [e.t for e in everything] == sorted(e.t for e in written)  # all of them, merged by time
    assert meter.by_operation["Query"] == 4  # one Query per shard, made in threads, still metered here

    assert [e.t for e in tenant_day_events(tenant="acme", day=day.date(), limit=5)] == [e.t for e in written[:5]]
    newest = tenant_day_events(tenant="acme", day=day.date(), limit=3, newest_first=True)
    assert [e.t for e in newest] == [e.t for e in reversed(written[-3:])]
    assert len(tenant_day_events(tenant="acme", day=day.date(), shards=8)) == 40  # more shards than written: fine
    assert tenant_day_events(tenant="acme", day=day.date() - timedelta(days=1)) == []
