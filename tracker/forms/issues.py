"""Issue forms: create and edit, move along the workflow, delete, filter the list by status."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core import signing, validators
from django.utils.html import format_html

from ddbmodels.issues import DESCRIPTION_MAX, LABEL_MAX, LABELS_MAX, PRIORITIES, STATUSES, TITLE_MAX, one_line
from ddbmodels.labels import Label
from ddbmodels.milestones import MilestoneItem
from tracker.forms.idempotency import IdempotentForm
from tracker.issue_terms import LABEL_RE, PRIORITY_LABELS, STATUS_LABELS, label_refusals

PRIORITY_CHOICES = [(p, PRIORITY_LABELS[p]) for p in PRIORITIES]


def same_text(a: str, b: str) -> bool:
    """Equal as a person sees them: line breaks of any kind alike, surrounding blanks ignored."""
    return _lines(a).strip() == _lines(b).strip()


def _lines(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n")


def _widen(field: forms.Field, length: int) -> None:
    """Let ``field`` take back a stored value of ``length`` characters (its clean method limits new text)."""
    assert isinstance(field, forms.CharField)
    if field.max_length is not None and length > field.max_length:
        field.max_length = length
        field.validators = [v for v in field.validators if not isinstance(v, validators.MaxLengthValidator)]
        field.validators.append(validators.MaxLengthValidator(length))
        field.widget.attrs["maxlength"] = str(length)


class TextField(forms.CharField):
    """A textarea's text with LF line breaks: browsers send CRLF, which would count twice against the limit."""

    def to_python(self, value: Any) -> str:
        return _lines(super().to_python(value) or "")


class IssueForm(IdempotentForm):
    """Create an issue, or edit one (``current``: its ``edit_snapshot`` as the editor loaded it).

    An edit changes only what the person changed. A value the form could not offer as it is stored
    (an assignee who is a viewer now or not in the team, a priority no longer offered, labels an
    import or an older version stored) is shown as it is, with a note, and comes back unchanged;
    only a value the person picks or types anew is checked against what may be picked now. Text
    that differs only in line breaks or surrounding blanks is the stored text.
    """

    title = forms.CharField(max_length=TITLE_MAX)
    description = TextField(
        max_length=DESCRIPTION_MAX, required=False, strip=False, widget=forms.Textarea(attrs={"rows": 8})
    )
    priority = forms.ChoiceField(choices=PRIORITY_CHOICES, initial="medium")
    assignee = forms.ChoiceField(required=False)
    # The team's labels in use as checkboxes (``catalogue``: works without JavaScript), each in its colour; others
    # are typed in ``labels`` (a member's new label is created with the default colour). The issue's labels are
    # the two together.
    picked = forms.MultipleChoiceField(
        label="The team's labels", required=False, widget=forms.CheckboxSelectMultiple(attrs={"class": "label-pick"})
    )
    labels = forms.CharField(
        required=False,
        max_length=LABELS_MAX * (LABEL_MAX + 2),
        help_text=f"Comma-separated, at most {LABELS_MAX}.",
    )
    # The project's open milestones (``milestone_choices``); an edit offers the issue's own as well, closed or not.
    milestone = forms.ChoiceField(
        required=False,
        label="Milestone",
        error_messages={
            "invalid_choice": "That milestone is not open any more (or not this project's): choose another."
        },
    )
    # The version the editor loaded (optimistic locking); absent when creating.
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    # What the editor loaded (signed), so a stale edit can be merged field by field; absent when creating.
    base = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        assignees: list[str],
        current: dict[str, Any] | None = None,
        standing: dict[str, str] | None = None,
        catalogue: list[Label] | None = None,
        milestones: list[tuple[str, str]] | None = None,
        **kwargs: Any,
    ) -> None:
        """``standing``: why a kept assignee cannot be picked anew ("viewer now"; default "not in this team")."""
        super().__init__(*args, **kwargs)
        self.current = current
        if milestones:  # (id, name): the project's open milestones (an edit: and the issue's own)
            milestone = self.fields["milestone"]
            assert isinstance(milestone, forms.ChoiceField)
            milestone.choices = [("", "— none —"), *milestones]
        else:
            del self.fields["milestone"]
        assignee = self.fields["assignee"]
        assert isinstance(assignee, forms.ChoiceField)
        choices = [("", "— nobody —")] + [(u, u) for u in assignees]
        kept = (current or {}).get("assignee") or ""
        if kept and kept not in assignees:
            why = (standing or {}).get(kept, "not in this team")
            choices.insert(1, (kept, f"{kept} ({why} — can't be newly assigned)"))
            assignee.help_text = (
                f"{kept} is {'a ' if why.startswith('viewer') else ''}{why}: they stay assigned until someone "
                "changes it, but cannot be assigned anew."
            )
        assignee.choices = choices
        priority = self.fields["priority"]
        assert isinstance(priority, forms.ChoiceField)
        kept = (current or {}).get("priority") or ""
        if kept and kept not in PRIORITIES:
            priority.choices = [*PRIORITY_CHOICES, (kept, f"{kept} (no longer offered)")]
        self.refused = _refused(catalogue or [])
        self._offer(catalogue or [])
        if current is not None:  # what is stored always fits back: a longer value may be kept, not typed anew
            _widen(self.fields["title"], len(current["title"]))
            _widen(self.fields["description"], len(_lines(current["description"])))
            _widen(self.fields["labels"], len(", ".join(current["labels"])))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.current is not None and self.add_prefix("milestone") not in self.data:
            # No select on the page (the project has no milestone) or a page from before it: left as loaded.
            cleaned["milestone"] = self.current.get("milestone") or ""
        return cleaned

    def clean_title(self) -> str:
        title = one_line(self.cleaned_data["title"]).strip()  # a line break becomes a space (issue 20, finding 10)
        if not title:
            raise forms.ValidationError("A title is required.")
        if self.current is not None and same_text(title, self.current["title"]):
            return str(self.current["title"])  # as stored, blanks and all
        if len(title) > TITLE_MAX:
            raise forms.ValidationError(f"At most {TITLE_MAX} characters.")
        return title

    def clean_description(self) -> str:
        description = self.cleaned_data.get("description") or ""
        if self.current is not None and same_text(description, self.current["description"]):
            return str(self.current["description"])
        if len(description.strip()) > DESCRIPTION_MAX:
            raise forms.ValidationError(f"At most {DESCRIPTION_MAX} characters.")
        return description.strip()

    def _offer(self, catalogue: list[Label]) -> None:
        """The catalogue's labels in use as the ``picked`` checkboxes; the issue's among them ticked, not typed."""
        offered = [label for label in catalogue if label.in_use]
        if not offered:
            del self.fields["picked"]
            return
        picked = self.fields["picked"]
        assert isinstance(picked, forms.MultipleChoiceField)
        picked.choices = [
            (label.name, format_html('<span class="label label-{}">{}</span>', label.colour, label.name))
            for label in offered
        ]
        if not self.is_bound:
            names = {label.name for label in offered}
            given = [part.strip() for part in str(self.initial.get("labels") or "").split(",") if part.strip()]
            self.initial = {
                **self.initial,
                "picked": [name for name in given if name in names],
                "labels": ", ".join(name for name in given if name not in names),
            }
        self.fields["labels"].label = "Other labels"
        self.fields["labels"].help_text = f"Comma-separated; at most {LABELS_MAX} labels in all."

    def clean_labels(self) -> list[str]:
        raw = self.cleaned_data.get("labels") or ""
        kept = {label.lower(): label for label in (self.current or {}).get("labels") or ()}
        labels: set[str] = set(self.cleaned_data.get("picked") or ())
        for part in (part.strip() for part in raw.split(",")):
            if part:
                labels.add(part if part in kept.values() else kept.get(part.lower(), part.lower()))
        new = sorted(labels - set(kept.values()))
        for label in new:  # an issue keeps what it has; it is not given a label being renamed, deleted or gone
            if label in self.refused:
                raise forms.ValidationError(self.refused[label])
        if len(labels) > LABELS_MAX and new:
            raise forms.ValidationError(f"At most {LABELS_MAX} labels.")
        for label in new:
            if len(label) > LABEL_MAX or not LABEL_RE.match(label):
                raise forms.ValidationError(
                    f"Label “{label}”: up to {LABEL_MAX} letters, digits, dots, dashes or underscores."
                )
        return sorted(labels)


def milestone_choices(listed: list[MilestoneItem], current: str | None = None) -> list[tuple[str, str]]:
    """(id, name) of the open milestones of ``listed`` (a project's), and first the issue's own ``current`` when it
    is not open, marked so: what it is in is shown as it is (kept on saving), and never offered to another issue."""
    choices = [(m.milestone_id, m.name) for m in listed if m.is_open]
    if current and current not in {value for value, _ in choices}:
        own = next((m for m in listed if m.milestone_id == current), None)
        shown = f"{own.name} ({own.state})" if own is not None else "a milestone no longer listed"
        choices.insert(0, (current, shown))
    return choices


def _refused(catalogue: list[Label]) -> dict[str, str]:
    """Labels an issue may not be given now, with why (a rename or delete of it runs, or is done)."""
    return label_refusals(catalogue)


class StatusForm(forms.Form):
    to = forms.ChoiceField(choices=[(s, STATUS_LABELS[s]) for s in STATUSES])
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class DeleteForm(forms.Form):
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class StatusFilterForm(forms.Form):
    status = forms.ChoiceField(choices=[("", "All")] + [(s, STATUS_LABELS[s]) for s in STATUSES], required=False)


# ---------------------------------------------------------------------------- stale edits, merged

EDITABLE = ("title", "description", "priority", "assignee", "labels", "milestone")
EDITABLE_LABELS = {
    "title": "Title",
    "description": "Description",
    "priority": "Priority",
    "assignee": "Assignee",
    "labels": "Labels",
    "milestone": "Milestone",
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
        "milestone": getattr(issue, "milestone", None) or "",  # its id; "" for none
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
