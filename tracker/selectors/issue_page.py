"""Everything the issue page reads besides the project and the issue, in one selector.

One page of comments (Query, Limit 21: ≈ 0.5 RCU per 4 KB), one page of the issue's history
(``issue_history_page``), who may be @mentioned (one SQL query), the attachments (one Query,
≈ 0.5 RCU) and the watchers (one Query, ≤ 0.5 RCU for a team under ~60). Template tags read
nothing: the view passes what this returns to the template.

The attachments and the watchers are the page's side panels: when DynamoDB cannot answer one of
them just now (``errors.is_unavailable``: throttled, failing or not answering after botocore's
retries), that panel says so and the rest of the page shows. Any other error is a defect and
fails the page, as it should.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ddbmodels.attachments import AttachmentItem
from ddbmodels.core.errors import is_unavailable
from ddbmodels.issues import IssueItem
from tracker.markdown import Mentions
from tracker.models import Tenant
from tracker.selectors.activity import HistoryPage, issue_history_page
from tracker.selectors.attachments import attachment_list
from tracker.selectors.comments import CommentListPage, comment_list_page, team_mentions
from tracker.selectors.inbox import WatchState, watch_state

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class IssuePage:
    comments: CommentListPage
    history: HistoryPage
    mentions: Mentions
    attachments: list[AttachmentItem] | None  # None: DynamoDB could not answer just now
    watch: WatchState | None  # None: DynamoDB could not answer just now


def issue_page(
    *,
    tenant: Tenant,
    username: str,
    issue: IssueItem,
    comments_cursor: str | None = None,
    history_cursor: str | None = None,
) -> IssuePage:
    """What the issue page shows of ``issue`` to ``username``; BadCursor for a tampered cursor."""
    return IssuePage(
        comments=comment_list_page(issue=issue, cursor=comments_cursor),
        history=issue_history_page(issue=issue, cursor=history_cursor),
        mentions=team_mentions(tenant=tenant),
        attachments=_side_panel(lambda: attachment_list(issue=issue), "attachments", issue),
        watch=_side_panel(lambda: watch_state(issue=issue, username=username), "watchers", issue),
    )


def _side_panel(read: Callable[[], T], what: str, issue: IssueItem) -> T | None:
    """``read()``, or None when DynamoDB is unavailable just now (logged); other errors go on."""
    try:
        return read()
    except Exception as error:
        if not is_unavailable(error):
            raise
        log.warning("could not read the %s of %s#%s", what, issue.pk, issue.number, exc_info=True)
        return None
