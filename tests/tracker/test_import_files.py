"""Import files a team can hand us (issue 20, findings 8 and 10): every bad file is a clear error, never a 500.

Deep nesting, numbers JSON cannot hold or URLs cannot name, comment bodies over the comment form's cap: a
command error and a form error, nothing written. Comment authors are names from elsewhere, never accounts here:
a name that could be a username is kept as ``<name> (imported)`` (no account can be called that), so no member
becomes the author of a comment someone else wrote (and can edit or delete it). Titles hold one line.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels.comments import BODY_MAX
from ddbmodels.core.errors import InvalidInput
from tests.tracker.conftest import World
from tracker.imports.records import NUMBER_MAX, imported_author, parse_text
from tracker.models import Membership
from tracker.services import comments as comment_services


def entry(number: Any = 1, **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": "T", "created_at": "2026-11-02T09:30:00Z", **extra}


def comment(author: str, body: str = "hi") -> dict[str, Any]:
    return {"user": {"login": author}, "body": body, "created_at": "2026-11-02T10:00:00Z"}


DEEP = "[" * 5_000 + "]" * 5_000  # 10 KB, deeper than Python recurses
BAD = {
    "deep": DEEP,
    "deep_in_entry": "[" + json.dumps(entry())[:-1] + ', "labels": ' + DEEP + "}]",
    "1e400": '[{"number": 1e400, "title": "T", "created_at": "2026-11-02T09:30:00Z"}]',
    "1e37": '[{"number": 1e37, "title": "T", "created_at": "2026-11-02T09:30:00Z"}]',
    "16 digits": json.dumps([entry(10**15)]),
    "a fraction": json.dumps([entry(1.5)]),
    "a long comment": json.dumps([entry(comments=[comment("hubot", "x" * (BODY_MAX + 1))])]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_github_file_is_invalid_input(name: str) -> None:
    with pytest.raises(InvalidInput):
        parse_text("github", BAD[name], name="export.json")


def test_the_largest_number_a_url_can_name_is_taken() -> None:
    (record,) = parse_text("github", json.dumps([entry(NUMBER_MAX)]), name="export.json")
    assert record.number == NUMBER_MAX == 999_999_999_999_999
    (record,) = parse_text("github", json.dumps([entry(3, comments=[comment("hubot", "x" * BODY_MAX)])]), name="e")
    assert len(record.comments[0].body) == BODY_MAX


@pytest.mark.parametrize(
    ("fmt", "text"),
    [("csv", "number,title\n1000000000000000,T\n"), ("jira", "Issue key,Summary\nWEB-1000000000000000,T\n")],
)
def test_csv_numbers_over_fifteen_digits_are_refused(fmt: str, text: str) -> None:
    with pytest.raises(InvalidInput, match="15 digits"):
        parse_text(fmt, text, name="export.csv")


def test_comment_authors_are_names_not_accounts() -> None:
    assert imported_author("bob") == "bob (imported)"
    assert imported_author("  bob  ") == "bob (imported)"
    assert imported_author("bob (imported)") == "bob (imported)"  # an export of an import imports back the same
    assert imported_author("") == "someone (imported)"
    assert imported_author("imported") == "someone (imported)"
    assert imported_author("Bob Smith") == "Bob Smith"  # no username holds a space
    comments = [comment("bob"), comment("alice")]
    (record,) = parse_text("github", json.dumps([entry(comments=comments)]), name="export.json")
    assert [n.author for n in record.comments] == ["bob (imported)", "alice (imported)"]


def test_a_title_with_line_breaks_is_imported_on_one_line() -> None:
    (record,) = parse_text("github", json.dumps([entry(title="a\r\nb\nc")]), name="export.json")
    assert record.title == "a b c"


@pytest.mark.ddblocal
@pytest.mark.parametrize("name", sorted(BAD))
def test_the_command_says_what_is_wrong_and_writes_nothing(world: World, tmp_path: Path, name: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(BAD[name])
    with pytest.raises(CommandError):
        call_command("import_issues", world.slug, "--format", "github", "--project", f"BAD={path}")
    assert ddb_issues.project_get(tenant=world.slug, key="BAD") is None


@pytest.mark.ddblocal
@pytest.mark.parametrize("name", sorted(BAD))
def test_the_import_form_says_what_is_wrong(world: World, name: str) -> None:
    owner = world.client_for(world.owner)
    upload = SimpleUploadedFile("bad.json", BAD[name].encode(), content_type="application/json")
    response = owner.post(world.url("imports/new/"), {"key": "BAD", "name": "Bad", "file": upload})
    assert response.status_code == 200
    assert "nothing was imported" in response.content.decode()
    assert ddb_issues.project_get(tenant=world.slug, key="BAD") is None


@pytest.mark.ddblocal
def test_an_imported_comment_is_nobody_s_here_and_its_issue_gets_one_line(world: World, tmp_path: Path) -> None:
    member = world.member.username
    path = tmp_path / "export.json"
    path.write_text(json.dumps([entry(title="one\ntwo", comments=[comment(member, "I said this?")])]))
    out = io.StringIO()
    call_command("import_issues", world.slug, "--format", "github", "--project", f"IMP={path}", stdout=out)
    assert "as '<name> (imported)': no account here becomes their author" in out.getvalue()
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="IMP", number=1)
    assert issue is not None
    assert issue.title == "one two"
    (note,) = ddb_comments.comment_page(stream=ddb_comments.issue_stream(world.slug, "IMP", 1), size=10).comments
    assert note.author == f"{member} (imported)"
    assert note.author != member
    # the member cannot delete it: it is not theirs
    membership = Membership.objects.get(user=world.member, tenant__slug=world.slug)
    with pytest.raises(Exception, match="author"):
        comment_services.comment_delete(membership=membership, issue=issue, comment=note, expected_version=1)


@pytest.mark.ddblocal
def test_the_import_page_says_how_comments_and_numbers_are_taken(world: World) -> None:
    page = world.client_for(world.owner).get(world.url("imports/new/")).content.decode()
    assert "“name (imported)”: nobody here" in page
    assert f"a comment at most {BODY_MAX} characters" in " ".join(page.split())
    assert "at most 15 digits" in page
