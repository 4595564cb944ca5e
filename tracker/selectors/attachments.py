"""Attachments as views see them: an issue's list, and one attachment of one issue (or 404)."""

from __future__ import annotations

from django.http import Http404

from ddbmodels import attachment_ops
from ddbmodels.attachments import ATTACHED, AttachmentItem
from ddbmodels.issues import IssueItem


def attachment_list(*, issue: IssueItem) -> list[AttachmentItem]:
    """The issue's attachments that are attached or on their way (Query: ≈ 0.5 RCU per 4 KB), oldest first."""
    return attachment_ops.attachment_list(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))


def attachment_get_or_404(*, issue: IssueItem, attachment_id: str, consistent: bool = False) -> AttachmentItem:
    """The issue's attachment in any state, or Http404 (missing, malformed id, another issue's).

    The key is built from the issue the URL names, and that issue was already resolved within the
    user's tenant: another tenant's attachment cannot be addressed, it is simply not found.
    """
    item = attachment_ops.attachment_get(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        attachment_id=attachment_id,
        consistent=consistent,
    )
    if item is None:
        raise Http404("No such attachment.")
    return item


def attachment_access(*, issue: IssueItem, attachment_id: str) -> AttachmentItem:
    """The issue's attachment while it is Attached, or Http404 (also when in flight, detached or failed)."""
    item = attachment_get_or_404(issue=issue, attachment_id=attachment_id)
    if item.state != ATTACHED:
        raise Http404("No such attachment.")
    return item
