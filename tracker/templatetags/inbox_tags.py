"""``{% watch_state as watch %}``: whether the person watches the issue in the template's context, and how many do.

The issue page includes ``tracker/watch_button.html``, which reads it without a view change. A
DynamoDB error hides the button (None), never the issue page.
"""

from __future__ import annotations

import logging

from django import template

from tracker.models import Membership
from tracker.selectors.inbox import WatchState
from tracker.selectors.inbox import watch_state as read_watch_state

log = logging.getLogger(__name__)
register = template.Library()


@register.simple_tag(takes_context=True)
def watch_state(context: template.Context) -> WatchState | None:
    """One Query of the issue's watchers (≤ 0.5 RCU); None when it cannot be read."""
    issue, membership = context.get("issue"), context.get("membership")
    if issue is None or not isinstance(membership, Membership):
        return None
    try:
        return read_watch_state(issue=issue, username=membership.user.get_username())
    except Exception:  # noqa: BLE001  (the issue itself still shows)
        log.warning("could not read the watchers of %s#%s", issue.pk, issue.number, exc_info=True)
        return None
