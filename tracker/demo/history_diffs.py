"""The demo's word diff in an issue's history (issue 21): in acme, alice edits WEB-1's description once, so its
history shows "edited the description" with "What changed" (her added sentence, a changed word struck and added).

Idempotent: nothing is done when WEB-1's description already ends with the added sentence (a demo loaded
before word diffs gets the edit on its next ``seed_demo``). Through the service, as a person would: one edit,
one ``issue.edited`` event with its diff (2 WCU + the issue's update).
"""

from __future__ import annotations

from ddbmodels import issues
from tracker.models import Membership
from tracker.services import issues as issue_services

TEAM, PROJECT, NUMBER, EDITOR = "acme", "WEB", 1, "alice"
ADDED = "Update: seen again on Safari 17 and Firefox 121; a second click does nothing either."


def edited(description: str) -> str:
    """The description after alice's edit: a sentence added, and the first "the" made "this" (a changed word)."""
    text = description.rstrip()
    text = text.replace(" the ", " this ", 1)
    return f"{text}\n\n{ADDED}" if text else ADDED


def history_diff_seed(team: str = TEAM) -> list[str]:
    """Edit WEB-1's description as alice unless done already; what was done, in words."""
    membership = (
        Membership.objects.filter(tenant__slug=team, user__username=EDITOR).select_related("user", "tenant").first()
    )
    issue = issues.issue_get(tenant=team, project_key=PROJECT, number=NUMBER, consistent=True)
    if membership is None or issue is None or issue.deleted_at is not None:
        return []
    description = issue.description or ""
    if description.rstrip().endswith(ADDED):
        return []
    issue_services.issue_update(
        membership=membership,
        issue=issue,
        expected_version=int(issue.version or 0),
        title=issue.title,
        description=edited(description),
        priority=issue.priority,
        assignee=issue.assignee,
        labels=issue.labels or (),
    )
    return [f"{EDITOR} edited {PROJECT}-{NUMBER}'s description (its history shows the word diff)"]
