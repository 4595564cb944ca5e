"""Template filters: human words for stored status and priority codes, and for how long ago."""

from datetime import datetime

from django import template
from django.utils.timesince import timesince

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


@register.filter
def ago(when: datetime) -> str:
    """How long ago, in its largest unit only ("11 hours ago", not "11 hours, 12 minutes ago"): short
    enough for a list's card on a phone; the exact time goes in the element's title."""
    return f"{timesince(when, depth=1)} ago"
