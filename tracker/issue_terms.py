"""An issue's words as a team reads them: status and priority names, what a label may be and why one may not now.

Shared by forms, selectors, services (notification wording), template tags and error pages, so
none of them imports another layer for a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ddbmodels.labels import GONE, RENAMING, Label

STATUS_LABELS = {"open": "Open", "in_progress": "In progress", "resolved": "Resolved", "closed": "Closed"}
PRIORITY_LABELS = {"low": "Low", "medium": "Medium", "high": "High", "urgent": "Urgent"}
LABEL_RE = re.compile(r"^[\w.-]+$")


def label_refusals(found: Iterable[Label]) -> dict[str, str]:
    """Labels an issue may not be given now, with why (a rename or delete of it runs, or is done), from the team's
    catalogue: what the issue form and the bulk bar (and the issue page's label form, which posts to it) refuse."""
    why: dict[str, str] = {}
    for label in found:
        if label.busy:
            doing = "renamed" if label.state == RENAMING else "deleted"
            why[label.name] = f"“{label.name}” is being {doing}; choose another label or try again when that is done."
        elif label.state == GONE:
            why[label.name] = (
                f"“{label.name}” was renamed to “{label.renamed_to}”."
                if label.renamed_to
                else f"“{label.name}” was deleted; a member can create it again on the labels page."
            )
    return why
