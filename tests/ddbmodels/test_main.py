"""``python -m ddbmodels distinct-keys``: the management command's output without Django, started fast."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command

import ddbmodels
from ddbmodels.__main__ import load_dotenv
from tests.raw_tables import INDEX, collection_items, put_items

ROOT = Path(__file__).resolve().parents[2]
# What a run imports when nothing else is loaded, run as ``python -m ddbmodels``: prints the keys,
# then on stderr whether Django, PynamoDB's models or any table package was imported along the way.
RUN_AND_TELL = (
    "import runpy, sys\n"
    "sys.argv = ['ddbmodels', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('ddbmodels', run_name='__main__', alter_sys=True)\n"
    "except SystemExit as done:\n"
    "    sys.stderr.write(f'exit {done.code}\\n')\n"
    "sys.stderr.write(f'django imported: {\"django\" in sys.modules}\\n')\n"
    "sys.stderr.write(f'pynamodb models imported: {\"pynamodb.models\" in sys.modules}\\n')\n"
    "tables = sorted(m for m in sys.modules if m.split('.')[:2] in [['ddbmodels', t] for t in ('issues', 'orders')])\n"
    "sys.stderr.write(f'tables imported: {tables}\\n')\n"
)


def environment() -> dict[str, str]:
    """The variables an operator would set: where DynamoDB is, a region, credentials (Local takes any)."""
    return {
        **{k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ},
        "DYNAMODB_ENDPOINT_URL": ddbmodels.current().endpoint_url or "",
        "AWS_DEFAULT_REGION": ddbmodels.current().region,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
    }


def ddbmodels_cli(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "ddbmodels", *args]
    return subprocess.run(command, cwd=ROOT, env=environment(), capture_output=True, text=True, timeout=60, check=False)


def manage(*args: str) -> str:
    out = io.StringIO()
    call_command("distinct_keys", *args, stdout=out)
    return out.getvalue()


@pytest.mark.ddblocal
def test_it_prints_what_the_management_command_prints_and_never_imports_django(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    keys = ["acme#WEB", "acme#API", "globex#APP", "東京#OPS"]
    put_items(name, [item for key in keys for item in collection_items("S", key, "N", range(5))])

    for method in ("auto", "scan", "skip-scan"):
        ran = ddbmodels_cli("distinct-keys", name, "--method", method, "--segments", "3", code=RUN_AND_TELL)
        assert ran.stderr.splitlines()[-4:] == [
            "exit 0",
            "django imported: False",
            "pynamodb models imported: False",
            "tables imported: []",
        ], ran.stderr
        assert (
            ran.stdout
            == manage(name, "--method", method, "--segments", "3")
            == "".join(f"{key}\n" for key in sorted(keys))
        )


@pytest.mark.ddblocal
def test_json_is_the_management_commands_report(tables: Callable[..., str]) -> None:
    name = tables("S", "N", index=True)
    put_items(name, [item for c in range(6) for item in collection_items("S", f"c{c}", "N", range(3), static=True)])

    ran = ddbmodels_cli("distinct-keys", name, "--method", "gsi", "--index", INDEX, "--json")
    mine, theirs = json.loads(ran.stdout), json.loads(manage(name, "--method", "gsi", "--index", INDEX, "--json"))

    assert ran.returncode == 0
    assert mine.pop("seconds") >= 0
    assert theirs.pop("seconds") >= 0
    assert mine == theirs
    assert (mine["method"], mine["distinct_keys"], mine["rcu"]) == ("gsi", 6, 0.5)


@pytest.mark.ddblocal
def test_errors_are_one_line_on_stderr_with_exit_status_1_and_bad_arguments_2(tables: Callable[..., str]) -> None:
    name = tables("S", "N")

    missing = ddbmodels_cli("distinct-keys", f"{name}-missing")
    no_index = ddbmodels_cli("distinct-keys", name, "--method", "gsi")
    bad_segments = ddbmodels_cli("distinct-keys", name, "--segments", "0")

    assert (missing.returncode, missing.stdout, missing.stderr) == (
        1,
        "",
        f"error: no table '{name}-missing' on this endpoint\n",
    )
    assert (no_index.returncode, no_index.stderr) == (
        1,
        "error: --method gsi needs --index NAME: a sparse index with one item per collection\n",
    )
    assert bad_segments.returncode == 2
    assert "--segments: must be from 1 to 1000000, got 0" in bad_segments.stderr
    assert "Traceback" not in missing.stderr + no_index.stderr + bad_segments.stderr


def test_the_registry_is_whole_however_the_package_was_imported() -> None:
    # ``import ddbmodels`` loads nothing heavy; the first ``registered()`` imports every table package.
    code = (
        "import sys\n"
        "from ddbmodels.core import connection\n"
        "print('ddbmodels.issues' in sys.modules, 'pynamodb.models' in sys.modules)\n"
        "print(*sorted(connection.registered()))\n"
        "import ddbmodels\n"
        "print(ddbmodels.IssueItem.__name__, ddbmodels.NotFound.__name__, ddbmodels.issues.__name__)\n"
    )
    ran = ddbmodels_cli(code=code)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "False False",
        "attachments comments counters idempotency_keys inbox issues jobs labels milestones orders preferences scores"
        " webhooks",
        "IssueItem NotFound ddbmodels.issues",
    ]


def test_it_starts_in_a_fraction_of_a_second() -> None:
    # The goal is ≤ 0.3 s (bench/distinct_keys.py measures it); the bound here is generous
    # because the test machine is shared, but Django alone (≈ 1 s to set up) would break it.
    seconds = []
    for _ in range(3):
        began = time.perf_counter()
        ran = ddbmodels_cli("distinct-keys", "--help")
        seconds.append(time.perf_counter() - began)
        assert ran.returncode == 0
        assert "--segments" in ran.stdout
    assert min(seconds) < 1.0, seconds


def test_the_dotenv_file_fills_only_what_the_environment_does_not_set(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "# a comment\nDYNAMODB_ENDPOINT_URL=http://127.0.0.1:8001\nexport AWS_DEFAULT_REGION='eu-west-1'\n"
        'DYNAMODB_TABLE_PREFIX="x-"\nnot a line\n',
        encoding="utf-8",
    )
    environ = {"DYNAMODB_ENDPOINT_URL": "http://elsewhere:8000"}

    load_dotenv(dotenv, environ)
    load_dotenv(tmp_path / "missing", environ)  # no file: nothing happens

    assert environ == {
        "DYNAMODB_ENDPOINT_URL": "http://elsewhere:8000",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "DYNAMODB_TABLE_PREFIX": "x-",
    }
