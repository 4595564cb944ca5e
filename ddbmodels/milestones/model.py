"""The milestones table: each project's milestones, one partition per project.

    PK pk = "<tenant>#<PROJECT>"   SK m = "<ULID>" (the creating form's idempotency key: created once)
    nm name (unique in the project: a name claim, see below)
    du due date (ISO, optional) · st "open" | "closing" (its open issues are being moved) | "closed" · ds description
    cl closed at · ct / ck while closing: where its open issues go (none: out of any) and the close's token (Resume)
    cm while closing: the open issues the close has moved so far (the request's before it handed over, the job's
       after each page): what the close's end counts from, also after a Resume
    lr the last close's outcome (who, when, its token, closed or left open and why, refused issues): set by the
       close's end, dropped by the next close, reopen or edit; the list row says it
    ic {"open": n, "in_progress": n, "resolved": n, "closed": n}: its live issues by status (the progress)
    v version (every edit and close is conditioned on it) · ca / ua / cb created, updated, created by

An issue names its milestone by id (``IssueItem.milestone``, attribute ``ms``) and the issues table's
sparse index ``milestone_status`` (``xm`` = ``<tenant>#<PROJECT>#<id>#<status>``) lists a milestone's
issues in a status: ``milestone:"v1.2"`` is one Query there. Progress is not counted per issue write
(that would double every status change): the project's counts refresh (``issues.project_counts_refresh``,
debounced after writes) already reads every issue's status, and its ``ms`` beside it; it hands the
counts per milestone to ``progress_write``, which writes only the milestones whose counts changed
(compared with the project's milestones as the site caches them: no read when cached).

Cost (DynamoDB's; ``bench/`` rows ``milestones.*``):

    a project's milestones with progress   Query pk, m < "name#" (one page: at most 200): ≈ 0.5 RCU, 1 request
    create                                 GetItem (the form's key) + that Query (the name check, the cap) +
                                           TransactWriteItems [Put milestone, Put name claim]: 4 WCU;
                                           the same form again writes nothing
    rename                                 TransactWriteItems [Update, Put new claim, Delete old claim]: 6 WCU
    edit / close / reopen                  UpdateItem conditioned on ``v``: 1 WCU (ChangedSinceRead if stale)
    progress refresh                       UpdateItem per milestone whose counts changed: 1 WCU each
                                           (+ the list's Query when the site's cache of it is cold)
    offboarding                            Query pk per project of the team, consistent: 1 RCU per 4 KB

Names are unique per project by a name claim: an item (pk, m = "name#<casefolded name>", of = the milestone's
id) written in the same transaction as the milestone, on condition it is not there, so two creates of one name
at the same instant make one milestone (the other form says the name is taken). The list's key condition
(m < "name#": ULIDs sort first) leaves claims out of its one Query. Milestones made before claims existed are
found by the list's read, which every create and rename still makes, and get their claim from ``claims_check``
(``manage.py upgrade_search --check-milestones``). A project keeps at most
``reads.MILESTONES_MAX`` (200) milestones, open and closed: the 201st create is refused (``TooMany``), so the
list's one page (Limit 220) never leaves one out.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from pynamodb.attributes import MapAttribute, NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute, VersionAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import utcnow

STATES = ("open", "closing", "closed")  # closing: its job is moving its open issues out
ISSUE_STATUSES = ("open", "in_progress", "resolved", "closed")  # the issues' (``ic``'s keys)
NAME_MAX = 60
DESCRIPTION_MAX = 1000
MILESTONE_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_milestone_id() -> str:
    """A ULID (time-sortable, 80 random bits): what a form without a key gets."""
    value = (int(utcnow().timestamp() * 1000) << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def partition_key(tenant: str, project_key: str) -> str:
    return f"{tenant}#{project_key}"


@register("milestones")
class MilestoneItem(Model):
    """One milestone of a project."""

    class Meta:
        table_name = "milestones"  # the base name: register() prefixes it

    pk = UnicodeAttribute(hash_key=True, attr_name="pk")
    milestone_id = UnicodeAttribute(range_key=True, attr_name="m")
    name = UnicodeAttribute(attr_name="nm")
    due = UnicodeAttribute(attr_name="du", null=True)  # an ISO date
    state = UnicodeAttribute(attr_name="st", default="open")
    description = UnicodeAttribute(attr_name="ds", null=True)
    issue_counts = MapAttribute(attr_name="ic", null=True)  # type: ignore[var-annotated]
    version = VersionAttribute(attr_name="v")
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    updated_at = UTCDateTimeAttribute(attr_name="ua", default=utcnow)
    created_by = UnicodeAttribute(attr_name="cb")
    closed_at = UTCDateTimeAttribute(attr_name="cl", null=True)
    close_to = UnicodeAttribute(attr_name="ct", null=True)  # closing: the milestone its open issues move to
    close_token = UnicodeAttribute(attr_name="ck", null=True)  # closing: the close's token (a resumed job's too)
    close_moved = NumberAttribute(attr_name="cm", null=True)  # closing: issues moved so far (``close_moved_write``)
    last_close = MapAttribute(attr_name="lr", null=True)  # type: ignore[var-annotated]  # see close_outcome()

    @property
    def tenant(self) -> str:
        return self.pk.partition("#")[0]

    @property
    def project_key(self) -> str:
        return self.pk.partition("#")[2]

    @property
    def is_open(self) -> bool:
        return self.state == "open"

    @property
    def is_closing(self) -> bool:
        """Handed to the close job: no second close, no reopen, no new issues in it until the job ends."""
        return self.state == "closing"

    def close_outcome(self) -> dict[str, Any] | None:
        """The last close's outcome (``lr``): by, at (ISO), token, closed (bool), moved (int), to (the target's
        name or None), refused ({reference: why}), why (why it was left open, else None), kept (closed with
        "keep": its open issues stay in it)."""
        return self.last_close.as_dict() if self.last_close is not None else None

    def close_said(self, *, own: bool = False) -> str:
        """The last close's outcome in a team's words ("" when none is kept): the list row shows it; ``own``: as
        told to the person whose close it was ("Your close ran: …")."""
        outcome = self.close_outcome()
        if not outcome:
            return ""
        moved = int(outcome.get("moved") or 0)
        where = f" to {outcome['to']}" if outcome.get("to") else ""
        moved_said = f"{moved} open issue{'s' if moved != 1 else ''} moved{where}" if moved else "nothing was moved"
        if outcome.get("kept"):
            moved_said = "its open issues stay in it"
        refused = outcome.get("refused") or {}
        more = int(outcome.get("refused_more") or 0)  # refused past the references kept (the close's REFUSED_KEPT)
        if outcome.get("closed"):
            left = f"; not moved: {_refs(refused, more)}" if refused else ""
            on = f" on {str(outcome.get('at') or '')[:10]}" if outcome.get("at") else ""
            whose = f"Your close ran: {self.name} is closed" if own else f"Closed by {outcome.get('by')}{on}"
            return f"{whose}: {moved_said}{left}."
        why = outcome.get("why") or ""
        if refused:
            were = "were" if len(refused) + more > 1 else "was"
            why = f"{_refs(refused, more)} {were} not moved" + (f"; {why}" if why else "")
        whose = f"Your close ran: it left {self.name} open" if own else f"{outcome.get('by')}’s close left it open"
        return f"{whose}: {why}; {moved_said}."

    def counts(self) -> dict[str, int]:
        """Its live issues by status, as last refreshed (zeros before the first refresh)."""
        raw: dict[str, Any] = self.issue_counts.as_dict() if self.issue_counts is not None else {}
        return {status: int(raw.get(status, 0)) for status in ISSUE_STATUSES}

    def done(self) -> int:
        """Issues resolved or closed: what the progress bar fills with."""
        counts = self.counts()
        return counts["resolved"] + counts["closed"]

    def total(self) -> int:
        return sum(self.counts().values())

    def remaining(self) -> int:
        """Issues open or in progress: what closing it asks about."""
        counts = self.counts()
        return counts["open"] + counts["in_progress"]


def _refs(refused: dict[str, Any], more: int = 0) -> str:
    listed = ", ".join(f"{ref} ({why})" for ref, why in sorted(refused.items()))
    return f"{listed} and {more} more" if more else listed
