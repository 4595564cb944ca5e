"""The bulk bar of a project's list: which issues (``n`` repeated, ``v<n>`` the version each row showed), what to do.

The list page renders it (``BulkForm(assignees=…)``: its idempotency key, bound to the change, is the
change's token); the bulk view reads it back. Empty fields leave that part alone; assignee ``NOBODY``
unassigns. Labels to add are lower-cased as the issue form stores new ones. A post no rendered bar can
send (a row without its version, a number twice, a status not offered, a damaged key) is ``damaged``:
the view answers it with a 400 page, not the list's message.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms

from ddbmodels.issues import LABEL_MAX, MAX_ISSUE_NUMBER, PRIORITIES, STATUSES
from tracker.forms.idempotency import IdempotentForm
from tracker.issue_terms import PRIORITY_LABELS, STATUS_LABELS

NOBODY = "!nobody"  # not a username: "!" is not allowed in one
NO_MILESTONE = "!none"  # not a milestone id (a ULID)
MAX_CHOSEN = 50  # the service's MAX_ISSUES, checked again there; here it keeps a huge post from being parsed
LABEL_SPLIT = re.compile(r"[,\s]+")


def label_names(raw: str) -> frozenset[str]:
    """Labels typed as "bug, ui" or "Bug UI", lower-cased as the issue form stores new labels (names are checked by
    the service): "Bug" is the team's label bug, never a second one."""
    return frozenset(part.lower() for part in LABEL_SPLIT.split(raw.strip()) if part)


def removed_label_names(raw: str) -> frozenset[str]:
    """Labels to take off: as typed and lower-cased, so a label an import stored as "Bug" can still be removed."""
    typed = frozenset(part for part in LABEL_SPLIT.split(raw.strip()) if part)
    return typed | label_names(raw)


class BulkForm(IdempotentForm):
    status = forms.ChoiceField(
        required=False, choices=[("", "Status…")] + [(s, STATUS_LABELS[s]) for s in STATUSES], label="Status"
    )
    assignee = forms.CharField(required=False, max_length=150, label="Assignee")
    priority = forms.ChoiceField(
        required=False, choices=[("", "Priority…")] + [(p, PRIORITY_LABELS[p]) for p in PRIORITIES], label="Priority"
    )
    labels_add = forms.CharField(required=False, max_length=10 * (LABEL_MAX + 2), label="Add labels")
    labels_remove = forms.CharField(required=False, max_length=10 * (LABEL_MAX + 2), label="Remove labels")
    # An open milestone's id (checked by the service: one may close between the page and the post) or NO_MILESTONE.
    milestone = forms.CharField(required=False, max_length=40, label="Milestone")
    next = forms.CharField(required=False, max_length=2000, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        assignees: list[str] | None = None,
        milestones: list[tuple[str, str]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.too_many = False  # more rows chosen than one change may take (``_versions``)
        self.assignee_choices = [("", "Assignee…"), (NOBODY, "— nobody —")] + [(u, u) for u in assignees or ()]
        self.milestone_choices = [("", "Milestone…"), (NO_MILESTONE, "— none —"), *(milestones or ())]

    @property
    def damaged(self) -> bool:
        """Invalid in a way no rendered bar produces (tampered, or broken on the way): a 400, not a message."""
        return bool(self.errors) and not self.too_many

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.is_bound:
            cleaned["versions"] = self._versions()
        return cleaned

    def _versions(self) -> dict[int, int]:
        """``n`` → the row's version (``v<n>``); a form error for anything that is not a listed issue's."""
        getlist = getattr(self.data, "getlist", None)  # a QueryDict: every value of a repeated name
        numbers: list[str] = getlist("n") if getlist else []
        if len(numbers) > MAX_CHOSEN:
            self.too_many = True  # "All on this page" of a long page: the person's choice, said on the list
            self.add_error(None, f"At most {MAX_CHOSEN} issues at a time; {len(numbers)} were chosen.")
            return {}
        versions: dict[int, int] = {}
        for raw in numbers:
            given: list[str] = getlist(f"v{raw}") if getlist else []
            version = given[0] if len(given) == 1 else ""
            if not (raw.isdigit() and version.isdigit() and 0 < int(raw) <= MAX_ISSUE_NUMBER):
                self.add_error(None, "This form is damaged (an issue without its version); reload the page.")
                return {}
            if int(raw) in versions:
                self.add_error(None, f"This form is damaged (issue {int(raw)} chosen twice); reload the page.")
                return {}
            versions[int(raw)] = int(version)
        return versions
