"""Template filters: human labels for stored status and priority codes."""

from django import template

from tracker.issue_terms import PRIORITY_LABELS, STATUS_LABELS

register = template.Library()


@register.filter
def status_label(code: str) -> str:
    return STATUS_LABELS.get(code, code)


@register.filter
def priority_label(code: str) -> str:
    return PRIORITY_LABELS.get(code, code)


@register.filter
def sorted_labels(labels: set[str] | None) -> list[str]:
    """An issue's labels in alphabetical order (a set has none)."""
    return sorted(labels or ())
