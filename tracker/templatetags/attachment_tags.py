"""The ``attachment_state`` filter: what an attachment's in-flight state looks like on the issue page.

The attachments themselves come from the view (``tracker.views.issue_page``): template tags read nothing.
"""

from __future__ import annotations

from django import template

register = template.Library()

STATE_LABELS = {"Attaching": "Uploading…", "Detaching": "Removing…"}


@register.filter
def attachment_state(state: str) -> str:
    """What an in-flight state looks like on the page ("" for Attached)."""
    return STATE_LABELS.get(state, "")
