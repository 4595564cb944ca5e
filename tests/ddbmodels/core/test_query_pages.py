"""core.items.query_pages: every page of a Query, or only the items asked for; a missing table is empty."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from tests import raw_tables

pytestmark = pytest.mark.ddblocal

ONE_COLLECTION = {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {":pk": {"S": "c1"}}}


def thirty_items(tables: Callable[..., str]) -> str:
    """A table holding one collection ``c1`` of 30 items (sort keys s00..s29) and one item of ``c2``."""
    name = tables()
    raw_tables.put_items(name, raw_tables.collection_items("S", "c1", "S", [f"s{n:02d}" for n in range(30)]))
    raw_tables.put_items(name, raw_tables.collection_items("S", "c2", "S", ["s00"]))
    return name


def test_every_page_is_read_to_the_last_in_key_order(tables: Callable[..., str]) -> None:
    name = thirty_items(tables)
    with capacity.measure() as meter:
        pages = list(query_pages(name, Limit=7, **ONE_COLLECTION))
    assert [len(page) for page in pages] == [7, 7, 7, 7, 2]
    assert [item["sk"]["S"] for page in pages for item in page] == [f"s{n:02d}" for n in range(30)]
    assert meter.by_operation == {"Query": 5}


def test_a_limit_asks_only_for_the_items_still_wanted_and_stops_there(tables: Callable[..., str]) -> None:
    name = thirty_items(tables)
    with capacity.measure() as meter:
        one = list(query_pages(name, limit=10, **ONE_COLLECTION))
    assert [len(page) for page in one] == [10]
    assert meter.by_operation == {"Query": 1}

    # Exactly the collection: DynamoDB hands back a LastEvaluatedKey with a full page; nothing more is asked.
    with capacity.measure() as meter:
        whole = list(query_pages(name, limit=30, ScanIndexForward=False, **ONE_COLLECTION))
    assert [item["sk"]["S"] for page in whole for item in page] == [f"s{n:02d}" for n in range(29, -1, -1)]
    assert meter.by_operation == {"Query": 1}

    with capacity.measure() as meter:
        more = list(query_pages(name, limit=50, **ONE_COLLECTION))
    assert [len(page) for page in more] == [30]
    assert meter.by_operation == {"Query": 1}


def test_a_table_that_does_not_exist_has_no_items() -> None:
    with capacity.measure() as meter:
        assert list(query_pages("no-such-table-here", **ONE_COLLECTION)) == []
    assert meter.by_operation == {"Query": 1}
