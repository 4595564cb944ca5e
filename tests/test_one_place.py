"""One idea, one place (issue 19): the source builds each shared key, list and clock reading in one module only.

Each test scans the code for the copies there used to be; a new copy fails it, with the place.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ddbmodels", "tracker")


def sources() -> list[tuple[str, str]]:
    """(path relative to the checkout, text) of every Python module of the app."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                found.append((str(path.relative_to(ROOT)), path.read_text()))
    return found


def places(pattern: re.Pattern[str], *, allowed: set[str]) -> list[str]:
    """``path:line: text`` of every match outside the ``allowed`` modules."""
    hits = []
    for path, text in sources():
        if path in allowed:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path}:{number}: {line.strip()}")
    return hits


# An f-string of a tenant (or a project's collection key) then ``#<project>#<number>``: an issue's stream.
ISSUE_STREAM_BUILT = re.compile(
    r'f"\{[^{}"]*(?:tenant|\.pk|collection_key)[^{}"]*\}(?:#\{[^{}"]*\})?#\{(?:int\()?[^{}"]*number'
)


def test_the_issue_stream_key_is_built_in_one_place() -> None:
    """``ddbmodels.core.keys.issue_stream`` builds it; events, comments, attachments, watchers and pages call it."""
    assert places(ISSUE_STREAM_BUILT, allowed={"ddbmodels/core/keys.py"}) == []


def test_the_pattern_finds_the_copies_there_were() -> None:
    for copy in (
        'return f"{tenant}#{project_key}#{int(number)}"',
        'key = f"{check_tenant(tenant)}#{project_key}#{int(number)}"',
        '"stream": f"{issue.pk}#{int(issue.number)}",',
        'key_equals(key, f"{collection_key(tenant, project)}#{number}", consistent=True)',
    ):
        assert ISSUE_STREAM_BUILT.search(copy), copy
    assert not ISSUE_STREAM_BUILT.search('return f"{tenant}{ISSUE_MARK}{project_key}#{int(number)}"')  # an award


# DynamoDB's retryable answers (throttling, 5xx) as string literals. (LimitExceededException is in the
# list too, but table rotation and DeleteTable answer that one control-plane refusal in words of their own.)
RETRYABLE_CODE = re.compile(
    r'"(?:ProvisionedThroughputExceeded(?:Exception)?|ThrottlingException|ThrottlingError|RequestLimitExceeded'
    r'|InternalServerError|ServiceUnavailable)"'
)


def test_the_retryable_error_codes_are_listed_in_one_place() -> None:
    """``ddbmodels.core.errors``: THROTTLING_CODES, UNAVAILABLE_CODES, RETRYABLE_REASONS; everyone reads them."""
    assert places(RETRYABLE_CODE, allowed={"ddbmodels/core/errors.py"}) == []


# An event kind as a bare string: "issue.created", "comment.added", "attachment.removed", …
BARE_KIND = re.compile(r'"(?:issue|comment|attachment)\.[a-z_]+"')


def test_event_kinds_are_named_through_the_registry() -> None:
    """``ddbmodels.events.kinds.Kind``: writers and readers name kinds through it, never as strings of their own."""
    assert places(BARE_KIND, allowed={"ddbmodels/events/kinds.py"}) == []


# Reading the wall clock other than through ddbmodels' one ``keys.utcnow`` (which the tests pin).
CLOCK_READ = re.compile(r"\bdatetime\.(?:now|utcnow|today)\(|\btime\.time\(\)|\bdate\.today\(\)")
CLOCK_ALLOWED = {
    "ddbmodels/core/keys.py",  # the clock itself
    "tracker/management/commands/dev_bootstrap.py",  # stamps a file for the dev tools, not the app's time
}


def test_the_time_is_read_from_one_clock() -> None:
    """``keys.utcnow`` (Django's ``timezone.now`` stays in code about Django's models; the tests pin both)."""
    assert places(CLOCK_READ, allowed=CLOCK_ALLOWED) == []
