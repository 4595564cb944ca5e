"""Every setting the code reads from the environment is in `.env.example` and the README table; the two agree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("tracker", "ddbmodels", "devtools", "manage.py")
# env("X"), env.int("X", …), os.environ.get("X"), os.environ["X"], env.ENVIRON.setdefault("X", …)
READS = re.compile(r"""(?:\benv(?:\.[a-z_]+)?\(\s*|environ(?:\.get\(|\[|\.setdefault\()\s*)["']([A-Z][A-Z0-9_]+)["']""")
NOT_SETTINGS = {"AWS_SESSION_TOKEN"}  # only cleared by the benchmarks next to DynamoDB Local's dummy keys


def names_in_code() -> set[str]:
    names: set[str] = set()
    for source in SOURCES:
        path = ROOT / source
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            names.update(READS.findall(file.read_text()))
    return names - NOT_SETTINGS


def names_in_env_example() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))


def names_in_readme_table() -> set[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Configuration", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def test_the_code_reads_settings_from_the_environment() -> None:
    """The parser itself: it finds the settings everyone knows are there."""
    assert {"SECRET_KEY", "DYNAMODB_ENDPOINT_URL", "DYNAMODB_LOCAL_DIR", "AWS_ACCESS_KEY_ID"} <= names_in_code()


def test_env_example_and_the_readme_table_list_the_same_variables() -> None:
    assert names_in_env_example() - names_in_readme_table() == set()
    assert names_in_readme_table() - names_in_env_example() == set()


def test_every_variable_the_code_reads_is_documented() -> None:
    assert names_in_code() - names_in_env_example() == set()
    assert names_in_code() - names_in_readme_table() == set()


def test_the_aws_keys_and_the_dynamodb_local_folder_are_documented() -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DYNAMODB_LOCAL_DIR", "DJANGO_SETTINGS_MODULE"):
        assert name in names_in_env_example(), name
        assert name in names_in_readme_table(), name
