"""Distinct partition keys of any table: scan, sparse index, skip scan, auto — on DynamoDB Local.

Every test makes its own tables (unique names under the run's prefix) with the low-level client
and deletes them at the end, so the tables look like anybody's, not like the models'.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

import ddbmodels
from ddbmodels.core import capacity, connection
from ddbmodels.patterns import distinct_keys as dk
from tests.raw_tables import INDEX, collection_items, put_items

pytestmark = pytest.mark.ddblocal

# Sort keys per type, in DynamoDB's order, the smallest and the largest value of the type included.
SORT_KEYS: dict[str, list[Any]] = {
    "S": ["", "a", "z", "é", "\uffff", "😀", "\U0010ffff", dk.MAX_S],
    "N": [Decimal("-" + dk.MAX_N), -1, 0, Decimal("0.5"), 10**20, Decimal(dk.MAX_N)],
    "B": [b"\x00", b"\x01", b"\x7f", b"\xff" * 1023, dk.MAX_B],
}
SORT_KEYS["S"].remove("")  # DynamoDB refuses empty key strings; listed for the reader, then dropped


def every_method(name: str, *, index: str | None) -> dict[str, dk.Result]:
    """Results by every method and several segment counts: ``"skip-scan/4"`` → result."""
    answers = {}
    for segments in (1, 3, 8):
        answers[f"scan/{segments}"] = dk.distinct_keys(name, dk.SCAN, segments=segments)
        answers[f"skip-scan/{segments}"] = dk.distinct_keys(name, dk.SKIP_SCAN, segments=segments)
        answers[f"auto/{segments}"] = dk.distinct_keys(name, dk.AUTO, segments=segments, index_name=index)
        if index is not None:
            answers[f"gsi/{segments}"] = dk.distinct_keys(name, dk.GSI, segments=segments, index_name=index)
    return answers


def probed_choice(result: dk.Result, *, keys: int, method: str) -> Any:
    """The report of an auto run that probed: ``keys`` keys found by ``method``, the cheapest estimate."""
    report = result.report
    assert len(result.keys) == keys
    assert report.estimates is not None
    assert report.probe is not None
    assert (report.method, min(report.estimates, key=report.estimates.__getitem__)) == (method, method), (
        report.as_dict()
    )
    return report


# ---------------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("range_type", ["S", "N", "B"])
def test_every_method_and_segment_count_agree_whatever_the_sort_key_type_even_at_its_maximum(
    tables: Callable[..., str], range_type: str
) -> None:
    name = tables("S", range_type, index=True)
    sort_keys = SORT_KEYS[range_type]
    items: list[dict[str, Any]] = []
    expected = []
    for c in range(24):
        key = f"col-{c:02d}"
        expected.append(key)
        # Collections of 1..all sort keys, some starting at, some ending at, one made only of the max value.
        chosen = sort_keys[c % 3 : c % 3 + 1 + c % len(sort_keys)] or sort_keys[-1:]
        items += collection_items("S", key, range_type, chosen, static=True)
    items += collection_items("S", "only-the-max", range_type, sort_keys[-1:], static=True)
    expected.append("only-the-max")
    put_items(name, items)

    answers = every_method(name, index=INDEX)

    assert {method: r.keys for method, r in answers.items() if r.keys != sorted(expected)} == {}
    # auto reads the sparse index: its entries are a fraction of the table, and skip-scan would
    # pay half a unit for each of the 25 collections.
    for segments in (1, 3, 8):
        auto = answers[f"auto/{segments}"].report
        assert auto.estimates is not None
        assert (auto.method, min(auto.estimates, key=auto.estimates.__getitem__)) == ("gsi", "gsi"), auto.estimates
    # Each jump lands in the next collection, never back in the same one: one Scan per collection
    # and one per segment to find its end (a "largest value" that is not the largest would show here).
    for segments in (1, 3, 8):
        assert answers[f"skip-scan/{segments}"].report.by_operation["Scan"] == len(expected) + segments


def test_an_empty_table_has_no_keys_by_any_method(tables: Callable[..., str]) -> None:
    name = tables("S", "N", index=True)

    answers = every_method(name, index=INDEX)

    assert {tuple(result.keys) for result in answers.values()} == {()}
    report = dk.distinct_keys(name).report
    assert (report.method, report.distinct_keys, report.probe) == ("scan", 0, None)


def test_a_hash_only_table_lists_every_item_and_skip_scan_falls_back_to_a_plain_scan(
    tables: Callable[..., str],
) -> None:
    name = tables("S", None)
    keys = [f"device-{i:03d}" for i in range(40)]
    put_items(name, [item for key in keys for item in collection_items("S", key, None, [None])])

    skipped = dk.distinct_keys(name, dk.SKIP_SCAN, segments=4)
    auto = dk.distinct_keys(name)

    assert skipped.keys == auto.keys == dk.distinct_keys(name, dk.SCAN).keys == keys
    assert (skipped.report.method, skipped.report.requested_method) == ("scan", "skip-scan")
    assert "no sort key" in (skipped.report.reason or "")
    assert (auto.report.method, auto.report.estimates is not None, auto.report.probe) == ("scan", True, None)


def test_number_partition_keys_come_back_exact_as_ints_when_integral_and_decimals_otherwise(
    tables: Callable[..., str],
) -> None:
    name = tables("N", "S")
    keys: list[Any] = [
        Decimal("-" + dk.MAX_N),  # not -Decimal(MAX_N): unary minus rounds to 28 digits, and overflows
        -7,
        Decimal("-0.25"),
        Decimal("1E-130"),
        0,
        1,
        Decimal("1.5"),
        10**37 + 1,  # 38 significant digits, DynamoDB's precision
        Decimal(dk.MAX_N),
    ]
    put_items(name, [item for key in keys for item in collection_items("N", key, "S", ["a", "b", dk.MAX_S])])

    for method in (dk.SCAN, dk.SKIP_SCAN):
        found = dk.distinct_keys(name, method, segments=2).keys
        assert found == sorted(keys), method
        assert [type(key) for key in found] == [int, int, Decimal, int, Decimal, int, Decimal, int, int]
        assert found[-1] == 99999999999999999999999999999999999999 * 10**88
        assert found[4] == Decimal("1E-130")


def test_binary_partition_keys_come_back_as_the_same_bytes(tables: Callable[..., str]) -> None:
    name = tables("B", "B", index=True)
    keys = [b"\x00", b"\x00\x00", b"\x01\xff", "é".encode(), b"\xff" * 2048]
    put_items(
        name,
        [item for key in keys for item in collection_items("B", key, "B", [b"\x00", dk.MAX_B], static=True)],
    )

    for method in (dk.SCAN, dk.SKIP_SCAN, dk.GSI):
        assert dk.distinct_keys(name, method, segments=3, index_name=INDEX).keys == sorted(keys), method


def test_non_ascii_partition_keys_come_back_intact_in_dynamodbs_utf8_order(tables: Callable[..., str]) -> None:
    name = tables("S", "S")
    keys = ["Zürich", "zürich", "東京", "Δέλτα", "😀 smile", "\uffff", "\U0010ffff", "a\u0301", "á", "tab\tin key"]
    put_items(name, [item for key in keys for item in collection_items("S", key, "S", ["1", "2", "3"])])

    for method in (dk.SCAN, dk.SKIP_SCAN):
        found = dk.distinct_keys(name, method, segments=2).keys
        assert found == sorted(keys, key=lambda key: key.encode()), method
        assert found.index("😀 smile") < found.index("\U0010ffff")
        assert found.index("\uffff") < found.index("😀 smile")  # UTF-8 order, not UTF-16's


def test_a_largest_value_that_is_not_the_largest_stops_skip_scan_instead_of_looping(
    tables: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    name = tables("S", "S")
    put_items(name, collection_items("S", "c", "S", ["a", "\uffff", "😀"]))
    # U+FFFF is the largest UTF-16 code unit but not the largest UTF-8 sequence: 😀 sorts after it.
    monkeypatch.setitem(dk.MAX_VALUE, "S", "\uffff" * 341)

    with pytest.raises(dk.DistinctKeysError, match="landed twice"):
        dk.distinct_keys(name, dk.SKIP_SCAN)


def test_on_our_issues_table_the_projects_index_and_skip_scan_find_the_projects_created(
    make_project: Callable[..., Any], make_issues: Callable[..., Any], tenant: str
) -> None:
    for key in ("WEB", "API", "OPS"):
        make_project(key)
    make_issues(3, "WEB")
    ours = {f"{tenant}#{key}" for key in ("WEB", "API", "OPS")}
    issues = ddbmodels.table_name("issues")  # shared by the session's tests: ours are a subset

    by_index = dk.distinct_keys(issues, dk.GSI, index_name="projects")
    by_skipping = dk.distinct_keys(issues, dk.SKIP_SCAN, segments=4)

    assert ours <= set(by_index.keys)
    assert by_skipping.keys == dk.distinct_keys(issues, dk.SCAN).keys
    assert set(by_index.keys) <= set(by_skipping.keys)  # every project has its collection


# ---------------------------------------------------------------------------------- segments


@pytest.mark.parametrize("method", [dk.SCAN, dk.SKIP_SCAN])
def test_the_union_of_the_segments_is_the_serial_result_and_no_key_is_in_two_segments(
    tables: Callable[..., str], method: str
) -> None:
    name = tables("S", "N")
    put_items(
        name, [item for c in range(60) for item in collection_items("S", f"c{c}", "N", range(1 + c % 5), size=50)]
    )
    serial = dk.distinct_keys(name, method).keys

    for total in (2, 7):
        parts = [dk.segment_keys(name, method, segment=s, total_segments=total).keys for s in range(total)]
        union = [key for part in parts for key in part]
        assert len(union) == len(set(union)), f"{total} segments: a key in two segments"
        assert sorted(union) == serial
        assert dk.distinct_keys(name, method, segments=total).keys == serial


# ---------------------------------------------------------------------------------- auto


def small_collections(name: str, collections: int) -> None:
    """``collections`` collections of 2 items of ~100 bytes: a scan is far cheaper than a skip scan."""
    put_items(
        name, [item for c in range(collections) for item in collection_items("S", f"c{c:04d}", "N", [1, 2], size=60)]
    )


def large_collections(name: str) -> None:
    """20 collections of 40 items of ~1 KB (800 KB): a skip scan (10 RCU) is far cheaper than a scan (~100)."""
    put_items(name, [item for c in range(20) for item in collection_items("S", f"c{c:02d}", "N", range(40), size=1000)])


def test_auto_on_a_small_table_decides_from_describe_table_alone_and_reads_it_once(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N")
    small_collections(name, 30)  # ~6 KB: a scan is 1 RCU, below what any probe could save

    with capacity.measure() as meter:
        result = dk.distinct_keys(name)

    report = result.report
    assert len(result.keys) == 30
    assert (report.method, report.collections_source, report.probe) == ("scan", "description", None)
    assert meter.by_operation == {"DescribeTable": 1, "Scan": 1}
    assert report.rcu == meter.rcu == 1.0
    assert "a probe could not pay for itself" in (report.reason or "")


def test_auto_probes_when_describe_table_cannot_decide_and_the_probe_stops_once_scan_is_cheaper(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N")
    small_collections(name, 600)  # ~100 KB: a scan ≈ 13 RCU, a skip scan 300

    report = probed_choice(dk.distinct_keys(name), keys=600, method="scan")
    scan_rcu = dk.distinct_keys(name, dk.SCAN).report.rcu

    assert report.collections_source == "probe"
    assert report.probe["total_segments"] == 20
    assert report.probe["stopped"] is True  # it saw enough collections to know skip-scan is dearer
    assert report.probe["requests"] <= 2  # 2 collections × 20 segments × 0.5 RCU ≥ a scan's ≈ 13
    assert report.rcu == pytest.approx(report.probe["rcu"] + scan_rcu)
    assert report.rcu <= 1.1 * scan_rcu


def test_auto_picks_skip_scan_for_large_collections_and_counts_the_probe_in_its_rcu(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N")
    large_collections(name)

    report = probed_choice(dk.distinct_keys(name, segments=2), keys=20, method="skip-scan")

    assert report.estimates["skip-scan"] < report.estimates["scan"]
    assert report.probe["stopped"] is False  # one segment of 20 holds a collection or two: it ran to its end
    skip_rcu = 20 * 0.5  # one half unit per collection; the last Scan of each segment finds nothing (free on Local)
    assert report.rcu == pytest.approx(report.probe["rcu"] + skip_rcu)
    assert report.probe["rcu"] <= 0.1 * skip_rcu + 0.5  # ≈ 1/20 of the collections, each half a unit
    assert report.by_operation["Scan"] == report.probe["requests"] + 20 + 2


def test_auto_with_items_over_4_kb_probes_fewer_segments_and_picks_skip_scan(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    put_items(name, [item for c in range(10) for item in collection_items("S", f"c{c}", "N", range(3), size=5000)])

    report = probed_choice(dk.distinct_keys(name), keys=10, method="skip-scan")

    # A scan is 18.5 RCU and one collection's first read 1 RCU: 18 segments keep the probe near 1/18.
    assert report.probe["total_segments"] == 18
    assert report.rcu == pytest.approx(report.probe["rcu"] + 10 * 1.0)  # two read units per first item
    assert report.rcu < report.estimates["scan"]


def test_auto_costs_within_10_percent_of_the_cheaper_method_on_small_and_large_collections(
    tables: Callable[..., str],
) -> None:
    small, large = tables("S", "N"), tables("S", "N")
    small_collections(small, 600)
    large_collections(large)

    for name in (small, large):
        cheapest = min(dk.distinct_keys(name, method).report.rcu for method in (dk.SCAN, dk.SKIP_SCAN))
        assert dk.distinct_keys(name).report.rcu <= 1.1 * cheapest, name


def test_auto_picks_the_index_when_one_is_named_and_it_is_the_cheapest(tables: Callable[..., str]) -> None:
    name = tables("S", "N", index=True)
    put_items(
        name,
        [
            item
            for c in range(20)
            # Small static items: DynamoDB Local sizes (and charges) a KEYS_ONLY index entry like its whole base item.
            for item in collection_items("S", f"c{c:02d}", "N", range(40), size=1000, static=True, first_size=50)
        ],
    )

    result = dk.distinct_keys(name, index_name=INDEX)

    report = result.report
    assert len(result.keys) == 20
    assert report.method == "gsi", report.as_dict()
    assert report.estimates is not None
    assert set(report.estimates) == {"scan", "gsi", "skip-scan"}
    assert (report.collections_source, report.collections_estimate, report.probe) == ("index", 20.0, None)
    assert report.rcu == 0.5  # 20 keys-only entries: one request, well under 4 KB


# ---------------------------------------------------------------------------------- cost, retries, progress


def test_skip_scan_costs_half_a_read_unit_per_collection_while_the_first_item_fits_in_4_kb(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N")
    # First items of 3.9 KB, the rest 20 KB each: only the first item of a collection is read.
    put_items(
        name,
        [
            item
            for c in range(12)
            for item in collection_items("S", f"c{c:02d}", "N", range(6), size=20_000, first_size=3_900)
        ],
    )

    for segments in (1, 4):
        with capacity.measure() as outer:
            result = dk.distinct_keys(name, dk.SKIP_SCAN, segments=segments)
        report = result.report
        scans = report.by_operation["Scan"]
        assert len(result.keys) == 12
        assert scans == 12 + segments  # one per collection, and one per segment that finds the end
        assert report.rcu == 12 * 0.5  # the end-finding Scans read nothing (DynamoDB Local charges them 0)
        assert outer.rcu == report.rcu  # the caller's meter sees every segment thread's Scans too
        assert outer.by_operation["Scan"] == scans


def test_a_first_item_over_4_kb_costs_a_full_read_unit_per_collection(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    put_items(name, [item for c in range(5) for item in collection_items("S", f"c{c}", "N", [1, 2], size=5_000)])

    assert dk.distinct_keys(name, dk.SKIP_SCAN).report.rcu == 5 * 1.0


def test_retries_reported_by_botocore_are_counted_and_a_final_failure_is_a_domain_error(
    tables: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from botocore.exceptions import ClientError

    name = tables("S", "N")
    put_items(name, [item for c in range(6) for item in collection_items("S", f"c{c}", "N", [1])])
    real = connection.client()

    class RetryingClient:
        """The real client, but every Scan answer says botocore retried it twice."""

        fail = False

        def __getattr__(self, attribute: str) -> Any:
            return getattr(real, attribute)

        def scan(self, **kwargs: Any) -> dict[str, Any]:
            if self.fail:
                raise ClientError(
                    {
                        "Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"},
                        "ResponseMetadata": {"RetryAttempts": 9},
                    },
                    "Scan",
                )
            answer = real.scan(**kwargs)
            answer["ResponseMetadata"]["RetryAttempts"] = 2
            return answer

    fake = RetryingClient()
    monkeypatch.setattr(connection, "client", lambda: fake)

    report = dk.distinct_keys(name, dk.SKIP_SCAN, segments=2).report
    assert report.retries == 2 * report.by_operation["Scan"]

    fake.fail = True
    with pytest.raises(dk.ReadFailed, match="ThrottlingException"):
        dk.distinct_keys(name, dk.SCAN, segments=3)


def test_progress_is_reported_from_every_segment_one_call_at_a_time_ending_with_the_totals(
    tables: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    name = tables("S", "N")
    put_items(name, [item for c in range(50) for item in collection_items("S", f"c{c:02d}", "N", [1, 2])])
    monkeypatch.setattr(dk, "PROGRESS_INTERVAL_S", 0.0)  # every Scan reports
    calls: list[tuple[int, int]] = []
    inside = threading.Lock()

    def on_progress(keys: int, requests: int) -> None:
        assert inside.acquire(blocking=False), "two progress calls at once"
        calls.append((keys, requests))
        inside.release()

    result = dk.distinct_keys(name, dk.SKIP_SCAN, segments=4, on_progress=on_progress)

    assert calls[-1] == (50, result.report.by_operation["Scan"])
    assert len(calls) >= 50
    assert calls == sorted(calls)  # both figures only grow


# ---------------------------------------------------------------------------------- errors, report


def test_wrong_arguments_and_unknown_tables_are_domain_errors(tables: Callable[..., str]) -> None:
    name = tables("S", "N")

    with pytest.raises(dk.TableNotFound):
        dk.distinct_keys(f"{name}-missing")
    with pytest.raises(dk.BadRequest, match="index"):
        dk.distinct_keys(name, dk.GSI)
    with pytest.raises(dk.BadRequest, match="no index 'nope'"):
        dk.distinct_keys(name, dk.GSI, index_name="nope")
    with pytest.raises(dk.BadRequest, match="segments"):
        dk.distinct_keys(name, dk.SCAN, segments=0)
    with pytest.raises(dk.BadRequest, match="unknown method"):
        dk.distinct_keys(name, "guess")


def test_the_report_is_json_and_says_what_was_asked_used_and_measured(tables: Callable[..., str]) -> None:
    name = tables("B", "N", index=True)
    put_items(name, collection_items("B", b"\x01", "N", [1, 2], static=True))

    report = dk.distinct_keys(name, segments=2, index_name=INDEX).report
    as_dict = json.loads(json.dumps(report.as_dict()))

    assert as_dict["requested_method"] == "auto"
    # One tiny collection: every method costs its minimum of one request, and a tie goes to scan.
    assert as_dict["estimates"] == {"scan": 0.5, "gsi": 0.5, "skip-scan": 0.5}
    assert as_dict["method"] == "scan"
    assert as_dict["reason"] == (
        "cheapest estimate: scan ≈ 0.5 RCU (the index's ItemCount (1) is the number of collections)"
    )
    assert (as_dict["collections_source"], as_dict["probe"]) == ("index", None)
    assert as_dict["distinct_keys"] == 1
    assert as_dict["by_operation"]["DescribeTable"] == 1
    for field in ("segments", "requests", "rcu", "retries", "seconds"):
        assert field in as_dict
