"""The floor arithmetic of ``devtools.bench.floors`` against DynamoDB's documented rules and examples.

Every bench judges its figures against these functions, so they are checked here on their own,
without DynamoDB, against AWS's documentation:

- item sizes: "DynamoDB item sizes and formats",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
  (attribute names + values; strings UTF-8 bytes; numbers 1 byte per two significant digits, leading
  and trailing zeros trimmed, + 1; binary its raw bytes; null and Boolean 1 byte; a List or Map 3
  bytes + 1 per element; an empty one 3 bytes);
- read and write units: "DynamoDB read and write operations",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
  (reads rounded up to 4 KB: a 3,500-byte item reads like a 4 KB one; an 8 KB item 2 units strongly
  consistent, 1 eventually consistent, 4 transactional; GetItem of 3.5 KB rounds to 4 KB and of 10
  KB to 12 KB; a BatchGetItem of 1.5 KB and 6.5 KB items is 12 KB, not 8: each item rounded on its
  own; a Query rounds the sum of the items it reads; writes rounded up to 1 KB, UpdateItem the
  larger of the item before and after, BatchWriteItem each item on its own) and the on-demand
  pricing page, https://aws.amazon.com/dynamodb/pricing/on-demand/ (transactional writes: 2 units
  per KB);
- index entries: "Using Global Secondary Indexes in DynamoDB", "Provisioned throughput
  considerations", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html
  (KEYS_ONLY projects the table's and the index's keys; "if an update to the table changes the value
  of an indexed key attribute (from A to B), two writes are required, one to delete the previous item
  from the index and another write to put the new item into the index"; an item without the index
  key is not in the index and costs it nothing).
"""

from __future__ import annotations

import pytest

from devtools.bench.floors import (
    ALL,
    KEYS_ONLY,
    Cost,
    Difference,
    Verdict,
    attribute_size,
    batch_get_units,
    index_entry,
    index_write_units,
    item_size,
    query_units,
    read_units,
    update_units,
    write_units,
)

KB = 1024


# ---------------------------------------------------------------------------- item sizes


def test_a_string_is_its_name_and_its_utf8_bytes() -> None:
    assert item_size({"name": {"S": "Alice"}}) == 4 + 5
    assert item_size({"café": {"S": "Zürich"}}) == 5 + 7  # é and ü are two bytes each in UTF-8


@pytest.mark.parametrize(
    ("number", "size"),
    [
        ("7", 2),  # 1 significant digit: 1 byte + 1
        ("12", 2),  # 2 digits: 1 byte + 1
        ("123", 3),  # 3 digits: 2 bytes + 1
        ("1000", 2),  # trailing zeros trimmed: 1 digit
        ("0.0012", 2),  # leading zeros trimmed: 2 digits
        ("-1001", 3),  # 4 digits (the inner zeros count), the sign not a digit
        ("12345678901234567890123456789012345678", 20),  # 38 digits, the most DynamoDB keeps: 19 + 1
        ("0", 2),  # zero: one digit
    ],
)
def test_a_number_is_one_byte_per_two_significant_digits_plus_one(number: str, size: int) -> None:
    assert attribute_size({"N": number}) == size
    assert item_size({"n": {"N": number}}) == 1 + size


def test_binary_counts_its_raw_bytes_not_its_base64_text() -> None:
    assert item_size({"blob": {"B": b"\x00\x01\x02"}}) == 4 + 3
    assert item_size({"blob": {"B": "AAEC"}}) == 4 + 3  # the same three bytes as base64 text


def test_null_and_boolean_are_one_byte() -> None:
    assert item_size({"ok": {"BOOL": True}, "gone": {"NULL": True}}) == (2 + 1) + (4 + 1)


def test_a_list_or_map_is_three_bytes_and_one_per_element() -> None:
    assert item_size({"tags": {"L": []}}) == 4 + 3  # an empty list: the name + 3 bytes
    assert item_size({"meta": {"M": {}}}) == 4 + 3
    assert item_size({"tags": {"L": [{"S": "a"}, {"S": "bc"}]}}) == 4 + 3 + (1 + 1) + (2 + 1)
    # a map's element is its name and its value, + 1
    assert item_size({"m": {"M": {"k": {"S": "v"}, "n": {"N": "123"}}}}) == 1 + 3 + (1 + 1 + 1) + (1 + 3 + 1)
    nested = {"L": [{"M": {"a": {"BOOL": False}}}]}  # a list holding a map: 3 + (3 + (1 + 1 + 1) + 1)
    assert attribute_size(nested) == 3 + (3 + 3 + 1)


def test_sets_add_up_their_members_by_their_own_rules() -> None:
    assert attribute_size({"SS": ["ab", "é"]}) == 2 + 2
    assert attribute_size({"NS": ["123", "1000"]}) == 3 + 2  # numbers sized as numbers, not as text
    assert attribute_size({"BS": [b"\x00\x01", "AAEC"]}) == 2 + 3


def test_an_unknown_type_is_an_error_not_a_guess() -> None:
    with pytest.raises(ValueError, match="unknown attribute type"):
        attribute_size({"X": "?"})


# ---------------------------------------------------------------------------- read units


def test_reads_round_up_to_4_kb() -> None:
    assert read_units(3500) == read_units(4 * KB) == 0.5  # "a 3,500-byte item ... the same as a 4 KB item"
    assert read_units(3500, consistent=True) == 1
    assert read_units(4 * KB + 1) == 1.0


def test_an_8_kb_item_is_2_units_strongly_1_eventually_4_in_a_transaction() -> None:
    assert read_units(8 * KB, consistent=True) == 2
    assert read_units(8 * KB) == 1
    assert read_units(8 * KB, transactional=True) == 4


def test_getitem_rounds_3_5_kb_to_4_and_10_kb_to_12() -> None:
    assert read_units(int(3.5 * KB), consistent=True) == 1
    assert read_units(10 * KB, consistent=True) == 3


def test_a_read_that_finds_nothing_still_costs_one_unit() -> None:
    assert read_units(0) == 0.5
    assert read_units(0, consistent=True) == 1
    assert query_units([]) == 0.5


def test_batchgetitem_rounds_each_item_on_its_own() -> None:
    # "two items of 1.5 KB and 6.5 KB: 12 KB (4 KB + 8 KB), not 8 KB"
    assert batch_get_units([int(1.5 * KB), int(6.5 * KB)], consistent=True) == 3
    assert batch_get_units([int(1.5 * KB), int(6.5 * KB)]) == 1.5
    assert batch_get_units([100] * 10) == 5.0  # ten small keys: 0.5 each, found or not


def test_a_query_page_rounds_the_sum_of_the_items_it_reads() -> None:
    assert query_units([int(1.5 * KB), int(6.5 * KB)], consistent=True) == 2  # 8 KB together
    assert query_units([150] * 26) == 0.5  # 26 small entries: 3,900 B, one 4 KB unit
    assert query_units([160] * 26) == 1.0  # 4,160 B: the next 4 KB step
    # 40.8 KB of items in one page: rounded to 44 KB, 11 units strongly consistent
    assert query_units([int(4.08 * KB)] * 10, consistent=True) == 11


# ---------------------------------------------------------------------------- write units


def test_writes_round_up_to_1_kb() -> None:
    assert write_units(500) == 1
    assert write_units(KB) == 1
    assert write_units(KB + 1) == 2
    assert write_units(int(3.5 * KB)) == 4
    assert write_units(0) == 1  # a delete of a tiny item, a refused write: at least one unit


def test_batchwriteitem_charges_each_item_on_its_own() -> None:
    # a 500-byte item and a 3.5 KB item: 1 + 4 = 5 units, not 4 (500 B + 3.5 KB)
    assert write_units(500) + write_units(int(3.5 * KB)) == 5


def test_a_transactional_write_is_two_units_per_kb() -> None:
    assert write_units(500, transactional=True) == 2
    assert write_units(int(3.5 * KB), transactional=True) == 8


def test_an_update_costs_the_larger_of_the_item_before_and_after() -> None:
    assert update_units(300, 2100) == 3
    assert update_units(2100, 300) == 3
    assert update_units(300, 400, transactional=True) == 2


# ---------------------------------------------------------------------------- index entries

TABLE_KEYS = ("pk", "sk")
ITEM = {"pk": {"S": "acme#WEB"}, "sk": {"N": "42"}, "gk": {"S": "acme#open"}, "body": {"S": "x" * 1500}}


def test_a_keys_only_entry_holds_the_table_keys_and_the_index_keys() -> None:
    entry = index_entry(ITEM, TABLE_KEYS, ("gk",), KEYS_ONLY)
    assert entry == {"pk": ITEM["pk"], "sk": ITEM["sk"], "gk": ITEM["gk"]}
    assert item_size(entry) == (2 + 8) + (2 + 2) + (2 + 9)  # the 1,500-byte body is not in it


def test_an_all_entry_is_the_whole_item_and_include_adds_the_named_attributes() -> None:
    assert index_entry(ITEM, TABLE_KEYS, ("gk",), ALL) == ITEM
    assert index_entry(ITEM, TABLE_KEYS, ("gk",), ["body"]) == ITEM
    assert index_entry(ITEM, TABLE_KEYS, ("gk",), ["title"]) == {k: ITEM[k] for k in ("pk", "sk", "gk")}


def test_an_item_without_the_index_key_has_no_entry() -> None:
    sparse = {k: v for k, v in ITEM.items() if k != "gk"}
    assert index_entry(sparse, TABLE_KEYS, ("gk",)) is None
    assert index_write_units(sparse, sparse, TABLE_KEYS, ("gk",)) == 0  # not in the index before or after


def test_index_writes_put_delete_and_a_moved_key_is_both() -> None:
    moved = {**ITEM, "gk": {"S": "acme#closed"}}
    sparse = {k: v for k, v in ITEM.items() if k != "gk"}
    assert index_write_units(None, ITEM, TABLE_KEYS, ("gk",)) == 1  # a new entry: a put
    assert index_write_units(ITEM, sparse, TABLE_KEYS, ("gk",)) == 1  # the key removed: a delete
    assert index_write_units(ITEM, moved, TABLE_KEYS, ("gk",)) == 2  # A to B: a delete and a put
    assert index_write_units(ITEM, moved, TABLE_KEYS, ("gk",), ALL) == 4  # each the whole 1.5 KB item
    # a transaction's entries: 1 WCU per KB on DynamoDB; DynamoDB Local's twice is the flag
    assert index_write_units(ITEM, moved, TABLE_KEYS, ("gk",), transactional=True) == 4


def test_an_index_entry_that_does_not_change_costs_nothing() -> None:
    edited = {**ITEM, "body": {"S": "y" * 3000}}
    assert index_write_units(ITEM, edited, TABLE_KEYS, ("gk",), KEYS_ONLY) == 0  # body is not projected
    assert index_write_units(ITEM, edited, TABLE_KEYS, ("gk",), ALL) == 3  # projected: rewritten, the larger


# ---------------------------------------------------------------------------- verdicts


def test_one_read_more_than_the_floor_is_not_explained() -> None:
    floor = Cost(0.5, 0, 1)
    assert Verdict("get", Cost(0.5, 0, 1), floor).status == "floor"
    assert Verdict("get", Cost(1.0, 0, 2), floor).status == "NOT EXPLAINED"
    assert not Verdict("get", Cost(1.0, 0, 2), floor).ok
    assert Verdict("get", Cost(0.0, 0, 1), floor).status == "BELOW FLOOR"
    named = Difference("a second page", Cost(0.5, 0, 1))
    assert Verdict("get", Cost(1.0, 0, 2), floor, extras=(named,)).status == "explained"
    assert Verdict("get", Cost(1.5, 0, 3), floor, extras=(named,)).status == "NOT EXPLAINED"
