"""Helpers of the import tests: a GitHub export, a Jira import by command, the imports storage of the test's own."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from django.core.management import call_command
from pytest_django.fixtures import SettingsWrapper

BASE = datetime(2026, 2, 1, tzinfo=UTC)


def github_export(count: int) -> list[dict[str, Any]]:
    """Entries 1…count as GitHub's issues endpoint returns them: every 4th a pull request, every 3rd has a comment."""
    entries: list[dict[str, Any]] = []
    for n in range(1, count + 1):
        created = BASE + timedelta(hours=n)
        entry: dict[str, Any] = {
            "number": n,
            "title": f"Moved widget {n}",
            "body": f"Body {n}",
            "state": "closed" if n % 5 == 0 else "open",
            "labels": [{"name": "bug"}] if n % 2 else [],
            "assignee": {"login": "someone-outside"} if n % 3 == 0 else None,
            "user": {"login": "octocat"},
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "closed_at": (created + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ") if n % 5 == 0 else None,
            "comments": [{"user": {"login": "hubot"}, "body": "seen", "created_at": entry_time(created)}]
            if n % 3 == 0
            else 0,
        }
        if n % 4 == 0:
            entry["pull_request"] = {"url": f"https://example.invalid/pulls/{n}"}
        entries.append(entry)
    return entries


def entry_time(moment: datetime) -> str:
    return (moment + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")


def export_bytes(count: int) -> bytes:
    return json.dumps(github_export(count)).encode()


def expected_numbers(count: int) -> list[int]:
    """The issues of ``github_export(count)``: every number but the pull requests'."""
    return [n for n in range(1, count + 1) if n % 4]


def imports_storage(settings: SettingsWrapper, folder: Path) -> Path:
    """Point the ``imports`` storage at ``folder`` (the live server of the browser tests shares it)."""
    folder.mkdir(parents=True, exist_ok=True)
    settings.STORAGES = {
        **settings.STORAGES,
        "imports": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(folder)}},
    }
    return folder


def stored_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


JIRA_HEADER = "Issue key,Summary,Status,Priority,Reporter,Created"


def jira_import(slug: str, folder: Path, *rows: str, by: str, project: str = "OPS") -> None:
    """``manage.py import_issues <slug> --format jira --project <project>=<a Jira CSV of rows> --by <by>``."""
    export = folder / "jira.csv"
    export.write_text("\n".join([JIRA_HEADER, *rows]) + "\n")
    call_command(
        "import_issues", slug, "--format", "jira", "--project", f"{project}={export}", "--by", by, stdout=io.StringIO()
    )
