"""Issue forms: create and edit, move along the workflow, delete, filter the list by status."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core import signing

from ddbmodels.issues import DESCRIPTION_MAX, LABEL_MAX, LABELS_MAX, PRIORITIES, STATUSES, TITLE_MAX
from tracker.forms.idempotency import IdempotentForm

STATUS_LABELS = {"open": "Open", "in_progress": "In progress", "resolved": "Resolved", "closed": "Closed"}
PRIORITY_LABELS = {"low": "Low", "medium": "Medium", "high": "High", "urgent": "Urgent"}
LABEL_RE = re.compile(r"^[\w.-]+$")


class IssueForm(IdempotentForm):
    title = forms.CharField(max_length=TITLE_MAX)
    description = forms.CharField(max_length=DESCRIPTION_MAX, required=False, widget=forms.Textarea(attrs={"rows": 8}))
    priority = forms.ChoiceField(choices=[(p, PRIORITY_LABELS[p]) for p in PRIORITIES], initial="medium")
    assignee = forms.ChoiceField(required=False)
    labels = forms.CharField(
        required=False,
        max_length=LABELS_MAX * (LABEL_MAX + 2),
        help_text=f"Comma-separated, at most {LABELS_MAX}.",
    )
    # The version the editor loaded (optimistic locking); absent when creating.
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    # What the editor loaded (signed), so a stale edit can be merged field by field; absent when creating.
    base = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, assignees: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assignee = self.fields["assignee"]
        assert isinstance(assignee, forms.ChoiceField)
        assignee.choices = [("", "— nobody —")] + [(u, u) for u in assignees]

    def clean_title(self) -> str:
        title = self.cleaned_data["title"].strip()
        if not title:
            raise forms.ValidationError("A title is required.")
        return title

    def clean_labels(self) -> list[str]:
        raw = self.cleaned_data.get("labels") or ""
        labels = sorted({part.strip().lower() for part in raw.split(",") if part.strip()})
        if len(labels) > LABELS_MAX:
            raise forms.ValidationError(f"At most {LABELS_MAX} labels.")
        for label in labels:
            if len(label) > LABEL_MAX or not LABEL_RE.match(label):
                raise forms.ValidationError(
                    f"Label “{label}”: up to {LABEL_MAX} letters, digits, dots, dashes or underscores."
                )
        return labels


class StatusForm(forms.Form):
    to = forms.ChoiceField(choices=[(s, STATUS_LABELS[s]) for s in STATUSES])
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class DeleteForm(forms.Form):
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class StatusFilterForm(forms.Form):
    status = forms.ChoiceField(choices=[("", "All")] + [(s, STATUS_LABELS[s]) for s in STATUSES], required=False)


# ---------------------------------------------------------------------------- stale edits, merged

EDITABLE = ("title", "description", "priority", "assignee", "labels")
EDITABLE_LABELS = {
    "title": "Title",
    "description": "Description",
    "priority": "Priority",
    "assignee": "Assignee",
    "labels": "Labels",
}
BASE_SALT = "tracker.forms.issues.base"


def edit_snapshot(issue: Any) -> dict[str, Any]:
    """The editable fields of an issue as the edit form shows them."""
    return {
        "title": issue.title,
        "description": issue.description or "",
        "priority": issue.priority,
        "assignee": issue.assignee or "",
        "labels": sorted(issue.labels or ()),
    }


def sign_base(snapshot: dict[str, Any]) -> str:
    return signing.dumps(snapshot, salt=BASE_SALT, compress=True)


def read_base(raw: str) -> dict[str, Any] | None:
    """The snapshot the editor loaded, or None (absent or tampered: every difference is then a conflict)."""
    try:
        base = signing.loads(raw, salt=BASE_SALT) if raw else None
    except signing.BadSignature:
        return None
    return base if isinstance(base, dict) and set(base) == set(EDITABLE) else None


def merge_edit(
    base: dict[str, Any] | None, mine: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Three-way merge of a stale edit: (merged values, fields taken from theirs, fields in conflict).

    A field only they changed takes their value; one only I changed keeps mine; one we both
    changed differently is a conflict: the form keeps mine, and the page shows theirs beside it.
    """
    merged, taken, conflicts = dict(mine), [], []
    for field in EDITABLE:
        if mine[field] == theirs[field]:
            continue
        if base is not None and mine[field] == base[field]:
            merged[field] = theirs[field]
            taken.append(field)
        elif base is None or theirs[field] != base[field]:
            conflicts.append(field)
    return merged, taken, conflicts
