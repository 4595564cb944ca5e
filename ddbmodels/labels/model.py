"""The labels table: an issue's labels as entries keyed per label, so a team's label writes spread.

An index key holds one value and an issue has several labels, so each (issue, label) pair is an
entry of its own, under the label's own partition key:

    entry      PK lk = "<team>#<label>"   SK s = "<status>#<PROJECT>#<number, 12 digits>"
               v  = the issue's version the entry was written for (the guard below)
               t st pr as lb rp ca ua = the issue's list row, under the issue item's own attribute names
    registry   PK lk = "<team>"           SK s = "<label>"    (one item per label the team ever used)

Reads, one Query each (a sort-key prefix of one label's partition, one page):
    a label's open issues in the team     lk = "acme#bug", begins_with(s, "open#")       by project, number
    … in one project                      lk = "acme#bug", begins_with(s, "open#WEB#")   by number

Why keyed per label (``terms`` put every label and title-word entry of a team under the team's one
key: 81–83 % of its writes on the hottest team's key in ``bench/load.py``): a label's key takes
only the writes of that label's issues, a fair share whatever the team's size. Title words are
gone from DynamoDB: full text lives in the search engine (``tracker/search``).

The row is copied on purpose: a label list is one Query of ≈ 0.5–1 RCU instead of a Query plus a
BatchGetItem of 0.5 RCU per issue shown (12.5 RCU for 25). Its price: an edit rewrites the
issue's label entries (1 WCU each; a status change moves them, a delete and a put: 2 WCU each).

The registry is how offboarding (and ``tenant_has_data``) finds every label key without a
team-wide hot key: a Query of ``lk = <team>`` names the labels, then one Query per label. A label's
registry item is written once, before its first entry (a conditional PutItem after an eventually
consistent GetItem, remembered per process), so the team's key takes a write per *new label*, not
per issue. The team's managed labels (colour, description, version, state) live on the same items
(``catalogue``); a renamed or deleted label's item stays, marked gone.

Entries are written after the issue's own conditional update, outside its transaction (a create
puts them in its transaction), each guarded by the issue version: a put only over an entry of an
older (or the same) version, a delete only of an older one, so a late writer never undoes a newer
one. ``writes.issue_labels_reconcile`` repairs an issue's entries from the issue itself
(idempotent): the change-event task and ``manage.py upgrade_search`` call it.

Why outside the issue's transaction: a transaction would double each entry's price (a status
change of an issue with 2 labels 18 WCU instead of 13; with ``terms``' 6 title words it was 20).
What that gives up: between the issue's update and its entries' writes (milliseconds) a label
list may still show the old status; a process that dies in between (or a put that lands after a
newer version deleted that status's entry) leaves an entry stale until the issue is reconciled —
by the change-event task, at once by a writer whose guarded write was refused, or by
``manage.py upgrade_search --check-labels`` (every team: the registry, each label's partition, a
BatchGetItem of the issues, ≈ 1 RCU per 4 KB of entries + 1 RCU an issue). ``bench/load.py``
checks each table's hottest key by writes at ≤ 25 % for ``labels`` in a burst of one team's creates.

Cost:

    a label's issues in a status    Query lk, begins_with(s), Limit 26: 0.5–1 RCU, 1 request
    a create with labels            Put entries in the issue's TransactWriteItems: 2 WCU an entry
    edit, status change, tombstone  after the issue's UpdateItem, PutItem ``attribute_not_exists(v) OR
                                    v <= :v`` / DeleteItem ``… OR v < :v`` per entry that changes:
                                    1 WCU an entry (a status change moves each: 2 WCU a label)
    a label new to the team         GetItem of its registry item (then trusted 5 min per process) + PutItem
                                    ``attribute_not_exists``: 0.5 RCU (+ 1 WCU the first time)
    offboarding, "has data?"        Query lk = <team> (the registry), then one Query per label:
                                    1 RCU per 4 KB, ≥ 1 a label
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register

NUMBER_DIGITS = 12
KEY_ATTRIBUTES = ("lk", "s")
STATUSES = ("open", "in_progress", "resolved", "closed")  # the issues' (a status is in the entry's sort key)


@register("labels")
class LabelEntry(Model):
    """A label entry of one issue, or (PK = the team) a label's registry item."""

    class Meta:
        table_name = "labels"  # the base name: register() prefixes it

    key = UnicodeAttribute(hash_key=True, attr_name="lk")
    sort = UnicodeAttribute(range_key=True, attr_name="s")
    version = NumberAttribute(attr_name="v", null=True)
    # the list row (issue attribute names) is written and read as raw attributes: see IssueRow


@dataclass(frozen=True)
class IssueRow:
    """What an entry copies of its issue: the list row, as the issues table stores it, and its version."""

    tenant: str
    project_key: str
    number: int
    status: str
    title: str
    labels: frozenset[str]
    row: dict[str, Any]  # the issue's list attributes in DynamoDB JSON (t, st, pr, as, lb, rp, ca, ua)
    version: int = 0


def label_key(tenant: str, label: str) -> str:
    """The partition key of a label's entries: ``<team>#<label>``."""
    return f"{tenant}#{label}"


def issue_suffix(project_key: str, number: int) -> str:
    return f"{project_key}#{number:0{NUMBER_DIGITS}d}"


def entry_sort(status: str, project_key: str, number: int) -> str:
    return f"{status}#{issue_suffix(project_key, number)}"


def label_prefix(status: str, project_key: str | None = None) -> str:
    """The sort-key prefix of a label's issues in a status (team-wide, or in one project)."""
    return f"{status}#{project_key}#" if project_key else f"{status}#"


def issue_of(sort: str) -> tuple[str, int]:
    """(project key, number) an entry's sort key points at: its last two parts."""
    project_key, number = sort.rsplit("#", 2)[-2:]
    return project_key, int(number)


def entry_keys(tenant: str, labels: frozenset[str] | set[str], project_key: str, number: int) -> list[dict[str, Any]]:
    """Every key an issue's entries of ``labels`` may have (each status): what a reconcile reads."""
    return [
        {"lk": {"S": label_key(tenant, label)}, "s": {"S": entry_sort(status, project_key, number)}}
        for label in sorted(labels)
        for status in STATUSES
    ]


def entries_for(issue: IssueRow) -> dict[tuple[str, str], dict[str, Any]]:
    """Every entry a live issue should have, by (partition key, sort key), as raw items (DynamoDB JSON)."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    sort = entry_sort(issue.status, issue.project_key, issue.number)
    for label in sorted(issue.labels):
        key = label_key(issue.tenant, label)
        entries[(key, sort)] = {**issue.row, "lk": {"S": key}, "s": {"S": sort}, "v": {"N": str(issue.version)}}
    return entries
