"""``manage.py distinct_keys``: keys one per line, the JSON report, clear errors (DynamoDB Local)."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from django.core.management import CommandError, call_command

import ddbmodels
from tests.raw_tables import INDEX, collection_items, put_items
from tracker.env import ROOT

pytestmark = pytest.mark.ddblocal


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("distinct_keys", *args, stdout=out)
    return out.getvalue()


def test_the_command_prints_each_distinct_key_once_on_its_own_line_in_order(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    keys = ["acme#WEB", "acme#API", "globex#APP", "東京#OPS"]
    put_items(name, [item for key in keys for item in collection_items("S", key, "N", range(5))])

    for method in ("auto", "scan", "skip-scan"):
        assert run(name, "--method", method, "--segments", "3").splitlines() == sorted(keys), method


def test_binary_keys_are_printed_as_marked_base64_and_numbers_in_decimal(tables: Callable[..., str]) -> None:
    binary = tables("B", "N")
    put_items(binary, [item for key in (b"\x00\xff", b"hi") for item in collection_items("B", key, "N", [1, 2])])
    number = tables("N", "N")
    put_items(number, [item for key in (-3, 7, "2.5") for item in collection_items("N", key, "N", [1])])

    lines = run(binary, "--method", "skip-scan").splitlines()
    assert lines == ["b64:" + base64.b64encode(b"\x00\xff").decode(), "b64:" + base64.b64encode(b"hi").decode()]
    assert run(number).splitlines() == ["-3", "2.5", "7"]


def test_json_prints_only_the_report_with_the_method_used_and_the_capacity_measured(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N", index=True)
    put_items(
        name,
        [item for c in range(6) for item in collection_items("S", f"c{c}", "N", range(3), static=True)],
    )

    report = json.loads(run(name, "--method", "gsi", "--index", INDEX, "--json"))

    assert report["table"] == name
    assert (report["method"], report["requested_method"], report["index_name"]) == ("gsi", "gsi", INDEX)
    assert report["distinct_keys"] == 6
    assert report["rcu"] == 0.5
    assert report["by_operation"] == {"DescribeTable": 1, "Scan": 1}
    for field in ("segments", "requests", "retries", "seconds", "estimates"):
        assert field in report


def test_auto_with_json_reports_its_estimates_and_what_they_rested_on(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    put_items(name, [item for c in range(4) for item in collection_items("S", f"c{c}", "N", range(3))])

    report = json.loads(run(name, "--json"))

    assert report["requested_method"] == "auto"
    # 12 small items: DescribeTable decides (a scan is one request), so only the scan is estimated.
    assert (set(report["estimates"]), report["collections_source"], report["probe"]) == ({"scan"}, "description", None)
    assert report["distinct_keys"] == 4


def test_gsi_without_an_index_is_a_clear_command_error(tables: Callable[..., str]) -> None:
    name = tables("S", "N")

    with pytest.raises(CommandError, match="--method gsi needs --index"):
        run(name, "--method", "gsi")


def test_an_unknown_table_or_index_is_a_clear_command_error(tables: Callable[..., str]) -> None:
    name = tables("S", "N")

    with pytest.raises(CommandError, match="no table 'no-such-table-here'"):
        run("no-such-table-here")
    with pytest.raises(CommandError, match="has no index 'nope'"):
        run(name, "--method", "gsi", "--index", "nope")
    with pytest.raises(CommandError, match="--segments: must be from 1"):
        run(name, "--segments", "0")


def test_from_the_command_line_keys_go_to_stdout_and_errors_are_one_line_not_a_traceback(
    tables: Callable[..., str],
) -> None:
    name = tables("S", "N")
    put_items(name, [item for key in ("b", "a") for item in collection_items("S", key, "N", [1])])
    env = {
        **{k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ},
        "DJANGO_SETTINGS_MODULE": "tracker.settings.test",
        "DYNAMODB_ENDPOINT_URL": ddbmodels.current().endpoint_url or "",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
    }

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "manage.py", "distinct_keys", *args]
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)

    listed = manage(name, "--method", "skip-scan")
    missing = manage(f"{name}-missing")
    no_index = manage(name, "--method", "gsi")

    assert (listed.returncode, listed.stdout) == (0, "a\nb\n")
    assert "\r" not in listed.stderr  # no progress bar when stderr is not a terminal
    assert "key/s" not in listed.stderr
    for failed in (missing, no_index):
        assert failed.returncode == 1
        assert failed.stderr.splitlines()[-1].startswith("CommandError: ")  # after any log line
        assert "Traceback" not in failed.stderr
