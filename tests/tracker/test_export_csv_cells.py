"""export_issues writes no spreadsheet formulas (issue 20, finding 11): CSV cells that a spreadsheet would run
(starting with = + - @, a tab or a carriage return) are written with a leading ' (OWASP's CSV injection advice),
and import_issues reads such a cell back as it was."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.tracker.conftest import World
from tracker.imports import parse
from tracker.imports.cells import FORMULA_START, safe_cell

pytestmark = pytest.mark.ddblocal

TITLES = ['=HYPERLINK("https://evil.example","click")', "+1 for this", "-2 days", "@SUM(A1:A2)", "Plain title"]


def test_safe_cell_prefixes_only_what_a_spreadsheet_would_run() -> None:
    assert [safe_cell(t) for t in TITLES] == [
        '\'=HYPERLINK("https://evil.example","click")',
        "'+1 for this",
        "'-2 days",
        "'@SUM(A1:A2)",
        "Plain title",
    ]
    assert safe_cell("\tx") == "'\tx"
    assert safe_cell("\rx") == "'\rx"
    assert safe_cell("") == ""
    assert set(FORMULA_START) == {"=", "+", "-", "@", "\t", "\r"}


@pytest.mark.parametrize("fmt", ["csv", "jira"])
def test_a_formula_title_is_exported_inert_and_imports_back_the_same(world: World, tmp_path: Path, fmt: str) -> None:
    source = tmp_path / "source.csv"
    with source.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["number", "title", "body", "reporter"])
        for n, title in enumerate(TITLES, start=1):
            writer.writerow([n, title, "=1+2" if n == 1 else "", "@bob" if n == 2 else "bob"])
    call_command("import_issues", world.slug, "--format", "csv", "--project", f"CELL={source}", stdout=io.StringIO())
    out = tmp_path / f"out.{fmt}"
    call_command("export_issues", world.slug, "--format", fmt, "--project", "CELL", "--out", str(out))
    rows = list(csv.reader(out.open(encoding="utf-8", newline="")))
    cells = [cell for row in rows[1:] for cell in row]
    assert cells, "the export holds the issues"
    assert not [cell for cell in cells if cell[:1] in FORMULA_START]
    assert "'" + TITLES[0] in cells
    assert "'=1+2" in cells
    back = sorted(parse(fmt, out), key=lambda r: r.number)
    assert [r.title for r in back] == TITLES
    assert back[0].body == "=1+2"


def test_the_command_help_says_so() -> None:
    from tracker.management.commands.export_issues import Command

    text = Command().create_parser("manage.py", "export_issues").format_help()
    assert "formula" in text
    assert "'" in text
