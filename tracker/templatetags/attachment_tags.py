"""``{% issue_attachments as panel %}``: an issue's attachments and upload form, from the template
context (``issue``, ``membership``), so the issue page includes them without a view change."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django import template
from django.conf import settings

from ddbmodels.attachments import AttachmentItem
from tracker.forms.attachments import AttachmentForm
from tracker.models import Membership
from tracker.selectors.attachments import attachment_list

log = logging.getLogger(__name__)
register = template.Library()

STATE_LABELS = {"Attaching": "Uploading…", "Detaching": "Removing…"}


@dataclass
class AttachmentPanel:
    items: list[AttachmentItem] = field(default_factory=list)
    form: AttachmentForm | None = None
    can_write: bool = False
    unavailable: bool = False


@register.simple_tag(takes_context=True)
def issue_attachments(context: template.Context) -> AttachmentPanel:
    """The panel for ``context["issue"]``; a DynamoDB outage hides the list, not the issue page."""
    issue, membership = context.get("issue"), context.get("membership")
    if issue is None or not isinstance(membership, Membership):
        return AttachmentPanel(unavailable=True)
    can_write = membership.allows("member")
    form = AttachmentForm(max_bytes=settings.ATTACHMENT_MAX_BYTES) if can_write else None
    try:
        items = attachment_list(issue=issue)
    except Exception:  # noqa: BLE001  (the issue itself still shows)
        log.warning("could not list the attachments of %s", issue.pk, exc_info=True)
        return AttachmentPanel(form=form, can_write=can_write, unavailable=True)
    return AttachmentPanel(items=items, form=form, can_write=can_write)


@register.filter
def attachment_state(state: str) -> str:
    """What an in-flight state looks like on the page ("" for Attached)."""
    return STATE_LABELS.get(state, "")
