"""docs/architecture.md stays short and true: every path, module, command and make target it names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
MAX_LINES = 200  # a newcomer reads it in ten minutes (issue 19); the cost tables live in the docstrings it links

COMMANDS = ROOT / "tracker" / "management" / "commands"
# `tracker/search/`, `ddbmodels/issues/model.py`, `bench/README.md`: a repo path (no placeholders like <table>)
PATH = re.compile(r"^[\w.-]+(?:/[\w.-]+)*(?:/|\.[a-z]{1,5})$")
MODULE = re.compile(r"^(?:ddbmodels|tracker|devtools|bench)(?:\.\w+)+$")  # `tracker.search.engine`, `…​.search_page`
MANAGE = re.compile(r"manage\.py\s+([a-z_]+)((?:\s+[^`]*)?)")
MAKE = re.compile(r"^make\s+([\w-]+)$")


def doc() -> str:
    return DOC.read_text()


def spans(text: str) -> list[str]:
    """What the doc names: every `code span` and every link target (fenced blocks are drawings, not names)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    named = re.findall(r"`([^`\n]+)`", text)
    named += [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]
    return named


def paths(text: str) -> set[str]:
    found: set[str] = set()
    for span in spans(text):
        for word in span.split():
            word = word.strip(",;:()").split("#", 1)[0]
            if "/" in word and PATH.match(word) and not word.startswith("/"):
                found.add(word)
    return found


def missing_paths(text: str, base: Path = DOC.parent) -> list[str]:
    """Paths that exist neither from the repo's root nor (a link) from the doc's own folder."""
    return sorted(p for p in paths(text) if not (ROOT / p).exists() and not (base / p).exists())


def module_file(parts: list[str]) -> tuple[Path, int] | None:
    """The longest prefix of ``parts`` that is a module or package: its file and how many parts it took."""
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate, end
    return None


def missing_modules(text: str) -> list[str]:
    """Dotted names (`tracker.search.engine.search`) whose module does not exist or does not define the name."""
    missing = []
    for span in spans(text):
        name = span.split("(", 1)[0]
        if not MODULE.match(name):
            continue
        parts = name.split(".")
        found = module_file(parts)
        if found is None:
            missing.append(name)
            continue
        file, used = found
        rest = parts[used:]
        if rest and not re.search(
            rf"^\s*(?:def|class|async def)\s+{rest[0]}\b|\b{rest[0]}\b\s*[:=]|import .*\b{rest[0]}\b",
            file.read_text(),
            flags=re.MULTILINE,
        ):
            missing.append(name)
    return sorted(set(missing))


def missing_commands(text: str) -> list[str]:
    """`manage.py <command> --option`: the command is a file in tracker/management/commands, each option in it."""
    missing = []
    for command, rest in MANAGE.findall(text):
        source = COMMANDS / f"{command}.py"
        if not source.is_file():
            missing.append(command)
            continue
        code = source.read_text() + (ROOT / "tracker" / "management" / "jobcommand.py").read_text()
        missing += [
            f"{command} {option}" for option in re.findall(r"--[a-z][a-z-]*", rest) if f'"{option}"' not in code
        ]
    return sorted(set(missing))


def missing_make_targets(text: str) -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.MULTILINE))
    return sorted({m.group(1) for span in spans(text) if (m := MAKE.match(span)) and m.group(1) not in targets})


def test_the_doc_reads_in_ten_minutes() -> None:
    lines = doc().count("\n")
    assert lines <= MAX_LINES, f"docs/architecture.md has {lines} lines; link the docstrings instead of copying them"


def test_every_path_the_doc_names_exists() -> None:
    assert missing_paths(doc()) == []


def test_every_module_and_name_the_doc_names_exists() -> None:
    assert missing_modules(doc()) == []


def test_every_management_command_and_option_the_doc_names_exists() -> None:
    assert missing_commands(doc()) == []


def test_every_make_target_the_doc_names_exists() -> None:
    assert missing_make_targets(doc()) == []


def test_the_doc_links_each_table_package_model_docstring() -> None:
    """The tables' costs live beside their models: the doc links each table package's model.py."""
    packages = sorted(p.parent.name for p in (ROOT / "ddbmodels").glob("*/model.py"))
    assert packages, "no table packages found"
    assert [p for p in packages if f"ddbmodels/{p}/model.py" not in doc()] == []


def test_the_readme_points_at_the_doc() -> None:
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "see `ddbmodels/nosuch/model.py` and [x](../tracker/nothing.py)",
            ["../tracker/nothing.py", "ddbmodels/nosuch/model.py"],
        ),
        ("`ddbmodels/issues/model.py`, [doc](../ddbmodels/issues/model.py), `tracker/search/`", []),
        ("`offboarding/<slug>/<stamp>/`, `/t/<team>/imports/`, `issue.created/edited`", []),
    ],
)
def test_the_path_check_itself(text: str, expected: list[str]) -> None:
    assert missing_paths(text) == expected


def test_the_name_command_and_target_checks_themselves() -> None:
    assert missing_modules("`tracker.search.engine.search`, `ddbmodels.core.keys.utcnow`") == []
    assert missing_modules("`tracker.search.nosuch`, `ddbmodels.core.keys.no_such_clock`") == [
        "ddbmodels.core.keys.no_such_clock",
        "tracker.search.nosuch",
    ]
    assert missing_commands("`manage.py search_index rebuild --tenant acme`, `manage.py offboard_tenant SLUG`") == []
    assert missing_commands("`manage.py no_such_command`, `manage.py search_index check --no-such-flag`") == [
        "no_such_command",
        "search_index --no-such-flag",
    ]
    assert missing_make_targets("`make lint`, `make test`") == []
    assert missing_make_targets("`make no-such-target`") == ["no-such-target"]
