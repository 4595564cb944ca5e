"""Hot keys: the partition keys each DynamoDB request names, sampling, the memory bound, the sink."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ddbmodels import connection
from ddbmodels.core import hot_keys
from ddbmodels.core.hot_keys import Batch, HotKeyCounter, Touch

ISSUES = ORDERS = ""  # the tables' names under the prefix the session points at (set per test)


@pytest.fixture(autouse=True)
def _every_request_counted() -> Iterator[None]:
    """Sample everything, flush at once, no sink; whatever earlier tests counted is dropped."""
    global ISSUES, ORDERS
    ISSUES, ORDERS = connection.table_name("issues"), connection.table_name("orders")
    hot_keys.configure(sample_rate=1.0, flush_seconds=0, max_keys=1000, sink=None)
    hot_keys.counter().drain()
    yield
    hot_keys.counter().drain()
    hot_keys.configure(sample_rate=hot_keys.DEFAULT_SAMPLE_RATE, flush_seconds=hot_keys.DEFAULT_FLUSH_SECONDS)


def test_getitem_updateitem_and_deleteitem_name_the_hash_key_of_their_key() -> None:
    key = {"pk": {"S": "acme#WEB"}, "n": {"N": "7"}}
    for operation in ("GetItem", "UpdateItem", "DeleteItem"):
        assert hot_keys.touches(operation, {"TableName": ISSUES, "Key": key}) == [Touch(ISSUES, "", "acme#WEB")]


def test_the_hash_key_is_found_by_its_stored_name_not_the_python_one() -> None:
    comments = connection.table_name("comments")  # Python ``stream``, stored ``s``
    query = {
        "TableName": comments,
        "KeyConditionExpression": "#0 = :0",
        "ExpressionAttributeNames": {"#0": "s"},
        "ExpressionAttributeValues": {":0": {"S": "acme#WEB#1"}},
    }
    assert hot_keys.touches("Query", query) == [Touch(comments, "", "acme#WEB#1")]


def test_putitem_names_the_hash_key_of_its_item() -> None:
    item = {"c": {"S": "acme#c1"}, "ts": {"S": "2026-11-23T10:00:00.000Z"}, "total": {"N": "5"}}
    assert hot_keys.touches("PutItem", {"TableName": ORDERS, "Item": item}) == [Touch(ORDERS, "", "acme#c1")]


def test_a_query_names_the_value_its_key_condition_gives_the_hash_key_of_the_table_or_index() -> None:
    table_query = {
        "TableName": ISSUES,
        "KeyConditionExpression": "#0 = :0 AND #1 > :1",
        "ExpressionAttributeNames": {"#0": "pk", "#1": "n"},
        "ExpressionAttributeValues": {":0": {"S": "acme#WEB"}, ":1": {"N": "0"}},
    }
    assert hot_keys.touches("Query", table_query) == [Touch(ISSUES, "", "acme#WEB")]
    # On an index the hash key is the index's (xs), not the table's; a sort-key equality is not it.
    index_query = {
        "TableName": ISSUES,
        "IndexName": "project_status_number",
        "KeyConditionExpression": "#1 = :1 AND #0 = :0",
        "ExpressionAttributeNames": {"#0": "xs", "#1": "n"},
        "ExpressionAttributeValues": {":0": {"S": "acme#WEB#open"}, ":1": {"N": "3"}},
    }
    assert hot_keys.touches("Query", index_query) == [Touch(ISSUES, "project_status_number", "acme#WEB#open")]


def test_batch_and_transaction_requests_name_every_item_and_a_scan_names_none() -> None:
    batch_get = {
        "RequestItems": {
            ISSUES: {"Keys": [{"pk": {"S": "a#X"}, "n": {"N": "1"}}, {"pk": {"S": "b#Y"}, "n": {"N": "2"}}]}
        }
    }
    assert hot_keys.touches("BatchGetItem", batch_get) == [Touch(ISSUES, "", "a#X"), Touch(ISSUES, "", "b#Y")]
    batch_write = {
        "RequestItems": {
            ISSUES: [
                {"PutRequest": {"Item": {"pk": {"S": "a#X"}, "n": {"N": "1"}}}},
                {"DeleteRequest": {"Key": {"pk": {"S": "c#Z"}, "n": {"N": "2"}}}},
            ]
        }
    }
    assert hot_keys.touches("BatchWriteItem", batch_write) == [Touch(ISSUES, "", "a#X"), Touch(ISSUES, "", "c#Z")]
    transaction = {
        "TransactItems": [
            {"Put": {"TableName": ISSUES, "Item": {"pk": {"S": "a#X"}, "n": {"N": "9"}}}},
            {"Update": {"TableName": ORDERS, "Key": {"c": {"S": "a#c"}, "ts": {"S": "t"}}}},
            {"ConditionCheck": {"TableName": ISSUES, "Key": {"pk": {"S": "a#X"}, "n": {"N": "0"}}}},
        ]
    }
    assert hot_keys.touches("TransactWriteItems", transaction) == [
        Touch(ISSUES, "", "a#X"),
        Touch(ORDERS, "", "a#c"),
        Touch(ISSUES, "", "a#X"),
    ]
    assert hot_keys.touches("Scan", {"TableName": ISSUES}) == []


def test_a_table_no_model_owns_counts_only_when_its_key_has_one_attribute() -> None:
    assert hot_keys.touches("GetItem", {"TableName": "other", "Key": {"id": {"S": "x"}}}) == [Touch("other", "", "x")]
    assert hot_keys.touches("GetItem", {"TableName": "other", "Key": {"a": {"S": "x"}, "b": {"S": "y"}}}) == []


def test_capacity_is_split_evenly_over_the_keys_of_each_table_and_weighed_by_the_sample() -> None:
    found = [Touch(ISSUES, "", "a#X"), Touch(ISSUES, "", "b#Y"), Touch(ORDERS, "", "a#c")]
    answer = {
        "ConsumedCapacity": [{"TableName": ISSUES, "CapacityUnits": 3.0}, {"TableName": ORDERS, "CapacityUnits": 1.0}]
    }
    hot_keys.record("TransactWriteItems", found, answer, weight=10.0)
    batch = hot_keys.counter().drain()
    assert batch.keys[Touch(ISSUES, "", "a#X")].wcu == 15.0
    assert batch.keys[Touch(ISSUES, "", "a#X")].requests == 10.0
    assert batch.keys[Touch(ORDERS, "", "a#c")].wcu == 10.0
    assert batch.keys[Touch(ORDERS, "", "a#c")].rcu == 0.0
    assert batch.tables[(ISSUES, "")].wcu == 30.0
    assert batch.tables[(ISSUES, "")].requests == 20.0


def test_the_counter_holds_at_most_max_keys_and_evicts_the_smallest_never_the_hot_one() -> None:
    counter = HotKeyCounter(max_keys=5)
    hot = Touch("t", "", "hot")
    for n in range(100):
        counter.add(hot, 1.0, 0.5, 0.0)
        counter.add(Touch("t", "", f"cold-{n}"), 1.0, 0.5, 0.0)
        assert len(counter) <= 5
    batch = counter.drain()
    assert len(batch.keys) == 5
    assert batch.keys[hot].requests == 100.0
    assert batch.evicted == 100 - 4
    assert batch.tables[("t", "")].requests == 200.0  # the table's total keeps what eviction dropped
    assert len(counter) == 0


def test_sampling_counts_about_rate_of_the_requests_each_weighing_one_over_the_rate() -> None:
    draws = iter([0.05, 0.5, 0.09, 0.95] * 25)  # 2 of every 4 draws fall under 0.1
    hot_keys.configure(sample_rate=0.1)
    hot_keys._state.random = lambda: next(draws)
    try:
        context: dict[str, object] = {}
        model = type("Op", (), {"name": "GetItem"})()
        params = {"TableName": ISSUES, "Key": {"pk": {"S": "acme#WEB"}, "n": {"N": "1"}}}
        for _ in range(100):
            hot_keys._before(params=params, model=model, context=context)
            hot_keys._after(
                model=model, parsed={"ConsumedCapacity": {"TableName": ISSUES, "CapacityUnits": 0.5}}, context=context
            )
    finally:
        hot_keys._state.random = hot_keys.random.random
    figures = hot_keys.counter().drain().keys[Touch(ISSUES, "", "acme#WEB")]
    assert figures.requests == pytest.approx(500.0)  # 50 sampled × 10
    assert figures.rcu == pytest.approx(250.0)


def test_a_sample_rate_of_zero_counts_nothing() -> None:
    hot_keys.configure(sample_rate=0.0)
    context: dict[str, object] = {}
    model = type("Op", (), {"name": "GetItem"})()
    hot_keys._before(params={"TableName": ISSUES, "Key": {"pk": {"S": "a#X"}}}, model=model, context=context)
    assert context == {}


def test_flush_hands_the_counts_to_the_sink_once_and_a_failing_sink_loses_only_its_batch() -> None:
    shipped: list[Batch] = []
    hot_keys.configure(sink=shipped.append)
    hot_keys.counter().add(Touch("t", "", "k"), 1.0, 1.0, 0.0)
    hot_keys.flush()
    assert [list(b.keys) for b in shipped] == [[Touch("t", "", "k")]]
    hot_keys.flush()
    assert len(shipped) == 1  # nothing new: the sink is not called for an empty batch

    def broken(batch: Batch) -> None:
        raise RuntimeError("Redis is down")

    hot_keys.configure(sink=broken)
    hot_keys.counter().add(Touch("t", "", "k"), 1.0, 1.0, 0.0)
    hot_keys.flush()  # does not raise
    assert len(hot_keys.counter()) == 0


def test_flush_waits_for_its_interval_unless_forced() -> None:
    shipped: list[Batch] = []
    hot_keys.configure(sink=shipped.append, flush_seconds=3600)
    hot_keys.flush(force=True)
    hot_keys.counter().add(Touch("t", "", "k"), 1.0, 0.0, 0.0)
    assert hot_keys.flush() is None
    assert shipped == []
    hot_keys.flush(force=True)
    assert len(shipped) == 1


@pytest.mark.ddblocal
def test_on_dynamodb_local_a_get_is_counted_under_its_key_with_the_capacity_dynamodb_reported(
    tenant: str, make_project: object
) -> None:
    from ddbmodels.issues.model import CollectionItem, collection_key

    make_project("WEB")  # type: ignore[operator]
    hot_keys.counter().drain()
    key = collection_key(tenant, "WEB")
    for _ in range(3):
        CollectionItem.get(key, 0)
    batch = hot_keys.counter().drain()
    figures = batch.keys[Touch(connection.table_name("issues"), "", key)]
    assert figures.requests == 3.0
    assert figures.rcu == pytest.approx(1.5)  # an eventually consistent GetItem of a small item: 0.5 RCU
