"""The terms table: an issue's labels and title words, as entries a list or a search reads by key.

An index key holds one value, and an issue has several labels and many title words, so each
(issue, label) and (issue, word) pair is an entry of its own — a tiny item, written in the same
TransactWriteItems as the issue it describes (``ddbmodels.issues.writes``), so the issue and its
entries change together or not at all.

    PK  tn = the team (tenant slug)
    SK  s  = "l#<label>#<status>#<PROJECT>#<number, 12 digits>"   a label entry
             "w#<word>#<PROJECT>#<number, 12 digits>"            a title-word entry
        w  = the title's indexed words, space-separated (word entries only: a search for several
             words Queries one word and keeps the entries holding the others, within one page)
        t st pr as lb rp ca ua = the list row: title, status, priority, assignee, labels,
             reporter, created, updated — under the issue item's own attribute names, so an
             entry reads back as the issue's list row without a second request

The row is copied on purpose (DynamoDB's "duplicate to serve the read"): a label list or a
search is then one Query of ≈ 1 RCU instead of a Query plus a BatchGetItem of 0.5 RCU per issue
shown (12.5 RCU for 25). The price is on writes: every edit rewrites the issue's entries in its
transaction (an issue with 6 title words and 2 labels: 8 entries, 2 × 9 = 18 WCU an edit), a fair
trade for a tracker whose lists are read many times for each change.

Reads, one Query each (then one BatchGetItem of the issues shown):
    a label's open issues in the team     begins_with(s, "l#bug#open#")          sorted by project, number
    … in one project                      begins_with(s, "l#bug#open#WEB#")      by number
    a word's issues (search)              begins_with(s, "w#login#")[+"WEB#"]    by project, number

Entries are ≈ 150–300 bytes: a page of 26 is ≈ 4–8 KB, 0.5–1 RCU eventually consistent, whatever
the team's size. Writes: 1 WCU per entry ≤ 1 KB, ×2 inside a transaction (prepare + commit). A
status change moves the label entries (delete + put: their key holds the status) and rewrites
the word entries (their row holds it).

Why one partition per team, like the idempotency table: offboarding a team (and "does this team
still hold data?") is one Query, and a team's term writes (a few per issue edit) stay far below
a partition's 1,000 WCU/s; DynamoDB splits a partition that grows hot or past 10 GB by sort-key
range, and the Queries here are sort-key ranges. A team that imports at hundreds of writes a
second should spread its import over time (``--max-wcu``) — the same advice as for any key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pynamodb.attributes import UnicodeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register

LABEL = "l"
WORD = "w"
NUMBER_DIGITS = 12
WORDS_MAX = 40  # distinct title words indexed per issue: a 200-character title rarely has more
WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
# Words too common to narrow a search: not indexed, and ignored in a query.
_STOP = "a an and are as at be but by for from has have in is it its of on or that the this to was were will with"
STOP_WORDS = frozenset(_STOP.split(" "))


@register("terms")
class TermEntry(Model):
    """One label or title-word entry of one issue."""

    class Meta:
        table_name = "terms"  # the base name: register() prefixes it

    tenant = UnicodeAttribute(hash_key=True, attr_name="tn")
    sort = UnicodeAttribute(range_key=True, attr_name="s")
    words = UnicodeAttribute(attr_name="w", null=True)
    # the list row (issue attribute names) is written and read as raw attributes: see IssueRow


KEY_ATTRIBUTES = ("tn", "s")


@dataclass(frozen=True)
class IssueRow:
    """What an entry copies of its issue: the list row, as the issues table stores it."""

    tenant: str
    project_key: str
    number: int
    status: str
    title: str
    labels: frozenset[str]
    row: dict[str, Any]  # the issue's list attributes in DynamoDB JSON (t, st, pr, as, lb, rp, ca, ua)


def issue_suffix(project_key: str, number: int) -> str:
    return f"{project_key}#{number:0{NUMBER_DIGITS}d}"


def label_prefix(label: str, status: str, project_key: str | None = None) -> str:
    prefix = f"{LABEL}#{label}#{status}#"
    return f"{prefix}{project_key}#" if project_key else prefix


def label_sort(label: str, status: str, project_key: str, number: int) -> str:
    return f"{LABEL}#{label}#{status}#{issue_suffix(project_key, number)}"


def word_prefix(word: str, project_key: str | None = None) -> str:
    prefix = f"{WORD}#{word}#"
    return f"{prefix}{project_key}#" if project_key else prefix


def word_sort(word: str, project_key: str, number: int) -> str:
    return f"{WORD}#{word}#{issue_suffix(project_key, number)}"


def issue_of(sort: str) -> tuple[str, int]:
    """(project key, number) an entry's sort key points at: its last two parts."""
    project_key, number = sort.rsplit("#", 2)[-2:]
    return project_key, int(number)


def title_words(title: str) -> list[str]:
    """The words a title is found by: lowercase letters and digits, no stop words, distinct, at most WORDS_MAX."""
    seen: dict[str, None] = {}
    for word in WORD_RE.findall(title.lower()):
        if len(word) >= 2 and word not in STOP_WORDS and len(word) <= 40:
            seen.setdefault(word, None)
    return list(seen)[:WORDS_MAX]


def query_words(text: str) -> list[str]:
    """The words of a search, normalised the way titles are (stop words and 1-letter words dropped)."""
    return title_words(text)


def entries_for(issue: IssueRow) -> dict[str, dict[str, Any]]:
    """Every entry a live issue should have, by sort key, as raw items (DynamoDB JSON)."""
    entries: dict[str, dict[str, Any]] = {}
    tenant = {"S": issue.tenant}
    for label in sorted(issue.labels):
        sort = label_sort(label, issue.status, issue.project_key, issue.number)
        entries[sort] = {**issue.row, "tn": tenant, "s": {"S": sort}}
    words = title_words(issue.title)
    joined = {"S": " ".join(words)}
    for word in words:
        sort = word_sort(word, issue.project_key, issue.number)
        entries[sort] = {**issue.row, "tn": tenant, "s": {"S": sort}, "w": joined}
    return entries
