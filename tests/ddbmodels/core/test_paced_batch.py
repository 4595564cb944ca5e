"""The bulk writer's parts: the token bucket, the interleaving, the paced BatchWriteItem on DynamoDB Local."""

from __future__ import annotations

import time

import pytest

from ddbmodels.core import batch, connection
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues import CollectionItem


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_bucket_starts_empty_and_a_take_waits_for_its_units() -> None:
    t = FakeTime()
    bucket = TokenBucket(10, clock=t.clock, sleep=t.sleep)
    bucket.take(5)
    assert t.now == pytest.approx(100.5)


def test_a_take_beyond_the_burst_becomes_debt_that_the_next_take_waits_off() -> None:
    t = FakeTime()
    bucket = TokenBucket(10, clock=t.clock, sleep=t.sleep)
    bucket.take(30)  # waits for the burst (10 units, 1 s), then owes 20
    assert t.now == pytest.approx(101.0)
    bucket.take(10)  # 20 owed + 10 asked: 3 s more
    assert t.now == pytest.approx(104.0)


def test_settle_charges_what_the_write_really_cost_and_drain_waits_it_off() -> None:
    t = FakeTime()
    bucket = TokenBucket(10, clock=t.clock, sleep=t.sleep)
    bucket.take(10)  # 1 s
    bucket.settle(10, 25)  # it cost 15 more
    bucket.drain()
    assert t.now == pytest.approx(102.5)  # 25 units at 10/s


def test_a_refund_is_capped_at_the_burst() -> None:
    t = FakeTime()
    bucket = TokenBucket(10, clock=t.clock, sleep=t.sleep)
    bucket.settle(100, 0)
    bucket.take(10)
    bucket.take(1)
    assert t.now == pytest.approx(100.1)


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        TokenBucket(0)


def test_interleave_puts_every_stream_in_every_chunk_of_25() -> None:
    streams = [
        [("a", {"n": i}) for i in range(100)],
        [("b", {"n": i}) for i in range(60)],
        [("c", {"n": i}) for i in range(40)],
    ]
    merged = list(batch.interleave(streams))
    assert sorted(merged, key=lambda r: (r[0], r[1]["n"])) == [r for s in streams for r in s]
    for table in "abc":  # each stream keeps its own order
        assert [r[1]["n"] for r in merged if r[0] == table] == sorted(r[1]["n"] for r in merged if r[0] == table)
    chunks = [merged[i : i + 25] for i in range(0, len(merged), 25)]
    assert len(chunks) == 8
    assert all({table for table, _ in chunk} == {"a", "b", "c"} for chunk in chunks)


def _puts(tenant: str, projects: int, per_project: int) -> list[list[batch.Request]]:
    return [
        [
            batch.put(
                CollectionItem.Meta.table_name,
                {"pk": {"S": f"{tenant}#P{p}"}, "n": {"N": str(n)}, "x": {"S": "y" * 1500}},
            )
            for n in range(1, per_project + 1)
        ]
        for p in range(projects)
    ]


@pytest.mark.ddblocal
def test_paced_batches_mix_partitions_and_stay_under_the_budget(tenant: str) -> None:
    seen: list[tuple[set[str], float]] = []
    bucket = TokenBucket(100)
    began = time.monotonic()
    done = batch.batch_write_paced(
        batch.interleave(_puts(tenant, 3, 40)),
        bucket=bucket,
        on_batch=lambda chunk, wcu: seen.append(({r["PutRequest"]["Item"]["pk"]["S"] for _, r in chunk}, wcu)),
    )
    elapsed = time.monotonic() - began
    assert done.written == 120
    assert done.batches == 5
    assert done.wcu == pytest.approx(240.0)  # 120 items of 1.5 KB: 2 WCU each, as DynamoDB Local reports
    assert [wcu for _, wcu in seen] == [50.0] * 4 + [40.0]
    assert all(len(partitions) == 3 for partitions, _ in seen)
    assert done.wcu / elapsed <= 100
    assert elapsed >= 2.3  # 240 WCU at 100/s, from an empty bucket


@pytest.mark.ddblocal
def test_paced_batches_without_a_bucket_write_everything_at_once(tenant: str) -> None:
    done = batch.batch_write_paced(batch.interleave(_puts(tenant, 2, 10)))
    assert (done.written, done.batches) == (20, 1)
    answer = connection.client().query(
        TableName=CollectionItem.Meta.table_name,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"{tenant}#P0"}},
        Select="COUNT",
    )
    assert answer["Count"] == 10
