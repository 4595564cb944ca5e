"""Emitting a recorded change to the team's webhook endpoints (D5 of PLAN22): exactly once per endpoint and event."""

from __future__ import annotations

import logging
from typing import Any

from ddbmodels.issues import IssueItem

log = logging.getLogger(__name__)


def emit_later(issue: IssueItem, *, kind: str, actor: str, data: dict[str, Any], event_key: str) -> None:
    """Put one delivery per active endpoint subscribed to ``kind`` and queue its sending; never raises.

    Nothing yet: the deliveries table lands next (no endpoints can be registered before it).
    """
    del issue, kind, actor, data, event_key
