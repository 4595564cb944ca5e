"""The issue page's context, shared by the pages that show it: ``views.issues`` (the page itself) and
``views.comments`` (the page again with a comment form's errors); and the issue's URL arguments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from ddbmodels.attachments import AttachmentItem
from ddbmodels.issues import TRANSITIONS, IssueItem, ProjectItem
from tracker.forms.attachments import AttachmentForm
from tracker.forms.bulk import NOBODY
from tracker.forms.comments import CommentForm
from tracker.forms.idempotency import new_idempotency_key
from tracker.issue_terms import STATUS_LABELS
from tracker.models import Membership
from tracker.selectors.issue_page import issue_page
from tracker.selectors.labels import catalogue_colours
from tracker.selectors.milestones import issue_milestone, milestone_list
from tracker.selectors.tenants import tenant_usernames


def issue_kwargs(membership: Membership, issue: IssueItem) -> dict[str, Any]:
    """The ``issue_detail`` URL's arguments for ``issue``."""
    return {"tenant": membership.tenant.slug, "project": issue.project_key, "number": int(issue.number)}


@dataclass(frozen=True)
class QuickForms:
    """The issue page's side forms (keys a, l, s): one-issue changes sent to the project's bulk edit."""

    assignees: list[str]  # the team's members and owners (one SQL query)
    keys: tuple[str, str, str]  # each form's own idempotency key (assign, labels, status)
    next: str  # back to the issue page
    nobody: str = NOBODY


@dataclass(frozen=True)
class AttachmentPanel:
    items: list[AttachmentItem]
    form: AttachmentForm | None
    can_write: bool
    unavailable: bool  # DynamoDB could not list them just now: the panel says so


def issue_page_context(
    membership: Membership,
    project: ProjectItem,
    issue: IssueItem,
    *,
    comments_cursor: str | None = None,
    history_cursor: str | None = None,
    comment_form: CommentForm | None = None,
) -> dict[str, object]:
    """The template context of ``tracker/issue_detail.html``: the page's reads in one selector."""
    page = issue_page(
        tenant=membership.tenant,
        username=membership.user.get_username(),
        issue=issue,
        comments_cursor=comments_cursor,
        history_cursor=history_cursor,
    )
    allowed = sorted(TRANSITIONS.get(issue.status, ()), key=list(STATUS_LABELS).index)
    comments, history = page.comments, page.history
    can_write = membership.allows("member")

    def page_link(**cursors: str | None) -> str:
        # Each pager keeps the other one where it is.
        query = {"comments": comments_cursor, "history": history_cursor, **cursors}
        return "?" + urlencode({k: v for k, v in query.items() if v})

    return {
        "membership": membership,
        "project": project,
        "issue": issue,
        "status_labels": STATUS_LABELS,
        "next_statuses": [(s, STATUS_LABELS[s]) for s in allowed],
        "labels": sorted(issue.labels or ()),
        "label_colours": catalogue_colours(tenant=membership.tenant),  # the chips' colours (cached catalogue)
        "mentions": page.mentions,
        "me": membership.user.get_username(),
        "comments": comments,
        "comments_older_url": page_link(comments=comments.older_cursor) if comments.older_cursor else None,
        "comments_newer_url": page_link(comments=comments.newer_cursor) if comments.newer_cursor else None,
        "comment_form": comment_form or (CommentForm() if can_write else None),
        "history": history,
        "history_older_url": page_link(history=history.older_cursor) if history.older_cursor else None,
        "history_newest_url": page_link(history=None) if history.is_continuation else None,
        "attachment_panel": AttachmentPanel(
            items=page.attachments or [],
            form=AttachmentForm(max_bytes=settings.ATTACHMENT_MAX_BYTES) if can_write else None,
            can_write=can_write,
            unavailable=page.attachments is None,
        ),
        "watch": page.watch,
        **_milestone_context(membership, project, issue, can_write),
        "quick": QuickForms(
            assignees=tenant_usernames(tenant=membership.tenant),
            keys=(new_idempotency_key(), new_idempotency_key(), new_idempotency_key()),
            next=reverse("issue_detail", kwargs=issue_kwargs(membership, issue)),
        )
        if can_write
        else None,
    }


def _milestone_context(
    membership: Membership, project: ProjectItem, issue: IssueItem, can_write: bool
) -> dict[str, Any]:
    """The issue's milestone (name, link to its issues) and, for members, the open ones to choose from (cached)."""
    milestone = issue_milestone(tenant=project.tenant, project_key=project.project_key, milestone_id=issue.milestone)
    listed = reverse("issue_list", kwargs={"tenant": membership.tenant.slug, "project": project.project_key})
    query = f'milestone:"{milestone.name}"' if milestone else ""
    choices = [m for m in milestone_list(tenant=project.tenant, project_key=project.project_key) if m.is_open]
    return {
        "milestone": milestone,
        "milestone_url": f"{listed}?{urlencode({'q': query})}" if milestone else None,
        "milestone_choices": choices if can_write else None,
        "milestone_key": new_idempotency_key() if can_write else None,
    }
