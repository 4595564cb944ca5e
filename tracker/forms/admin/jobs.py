"""One small form per maintenance job: its parameters, validated before anything is queued."""

from __future__ import annotations

from typing import Any

from django import forms

from ddbmodels.core import connection
from ddbmodels.patterns.distinct_keys.methods import METHODS
from tracker import enqueue
from tracker.selectors.admin.tables import archive_label, archived_tables, endpoint_tables, table_label
from tracker.selectors.archives import restore_refusal

MAX_SEGMENTS = 1024  # an admin bound: far above the 32 threads a worker runs, far below DynamoDB's limit
METHOD_CHOICES = [(m, m) for m in METHODS]


def table_choices() -> list[tuple[str, str]]:
    """The app's tables, then every other table on the endpoint (ListTables, free), each labelled with what it is."""
    ours = sorted(connection.table_name(base) for base in connection.registered())
    others = sorted(name for name in endpoint_tables() if name not in ours)
    return [(n, n) for n in ours] + [(n, table_label(n)) for n in others]


def archive_choices() -> list[tuple[str, str]]:
    return [(name, archive_label(name)) for name in archived_tables()[0]]


class JobForm(forms.Form):
    """A job's parameters; ``task`` names the Celery task (``tracker.enqueue``) and ``kwargs()`` its arguments."""

    title = ""
    task: str

    def kwargs(self) -> dict[str, Any]:
        return dict(self.cleaned_data)


class ScanParams(forms.Form):
    method = forms.ChoiceField(choices=METHOD_CHOICES, initial="auto")
    segments = forms.IntegerField(min_value=1, max_value=MAX_SEGMENTS, initial=1)


class DistinctKeysForm(JobForm, ScanParams):
    title = "Distinct partition keys"
    task = enqueue.DISTINCT_KEYS
    table = forms.ChoiceField(choices=())
    index = forms.CharField(required=False, max_length=255, help_text="For gsi (or auto): a GSI name.")

    field_order = ["table", "method", "segments", "index"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["table"].choices = table_choices()  # type: ignore[attr-defined]

    def kwargs(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["index"] = data["index"] or None
        return data


class EnumerateProjectsForm(JobForm, ScanParams):
    title = "Enumerate projects"
    task = enqueue.ENUMERATE_PROJECTS


class BackfillProjectCountsForm(JobForm, ScanParams):
    title = "Backfill project counts"
    task = enqueue.BACKFILL_PROJECT_COUNTS


class RotateForm(JobForm):
    title = "Rotate events tables"
    task = enqueue.ROTATE_EVENT_TABLES


class ArchiveForm(JobForm):
    title = "Archive events tables"
    task = enqueue.ARCHIVE_EVENT_TABLES
    dry_run = forms.BooleanField(required=False, initial=True, help_text="Export and verify, drop nothing.")


class RestoreForm(JobForm):
    title = "Restore an events table"
    task = enqueue.RESTORE_EVENT_TABLE
    archive = forms.ChoiceField(choices=())
    table = forms.RegexField(
        regex=r"^[A-Za-z0-9_.-]{3,255}$", required=False, help_text="New table name (default: the archived name)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["archive"].choices = archive_choices()  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any] | None:
        if refusal := restore_refusal():  # nothing is queued: the page says why
            raise forms.ValidationError(refusal)
        return super().clean()

    def kwargs(self) -> dict[str, Any]:
        return {"archive": self.cleaned_data["archive"], "table": self.cleaned_data["table"] or None}


class ReconcileForm(JobForm):
    title = "Reconcile attachments"
    task = enqueue.RECONCILE_ATTACHMENTS
    older_than_seconds = forms.IntegerField(required=False, min_value=0, max_value=30 * 86400)
    limit = forms.IntegerField(required=False, min_value=1, max_value=100_000)


JOB_FORMS: dict[str, type[JobForm]] = {
    "distinct_keys": DistinctKeysForm,
    "enumerate_projects": EnumerateProjectsForm,
    "backfill_project_counts": BackfillProjectCountsForm,
    "rotate": RotateForm,
    "archive": ArchiveForm,
    "restore": RestoreForm,
    "reconcile": ReconcileForm,
}
