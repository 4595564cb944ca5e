"""Documents made from DynamoDB items: one change at a time (the Celery task), a tenant's removal.

Every write reads the item **as it is now** in DynamoDB and keeps its document only if that
version is newer than the one stored (``documents``). The rebuild (``rebuild``) and the check
(``check``) have modules of their own; their names are importable from here too.

Costs, per recorded change: one consistent GetItem (1 RCU per 4 KB) and 1–3 SQL statements
(an UPDATE, and a SELECT + INSERT the first time); on SQLite the FTS5 triggers re-index the
row's words (measured in bench/search.py).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from ddbmodels.issues import IssueItem
from tracker import enqueue
from tracker.search.check import CheckReport, check
from tracker.search.documents import comment_fields, index_change, index_comment_item, index_issue_item, issue_fields
from tracker.search.models import IndexCheckpoint, SearchDocument
from tracker.search.rebuild import checkpoint_name, rebuild, rebuild_after_import, rebuild_with_stored_checkpoint

log = logging.getLogger(__name__)

__all__ = [
    "CheckReport",
    "check",
    "checkpoint_name",
    "comment_fields",
    "index_change",
    "index_comment_item",
    "index_issue_item",
    "index_later",
    "issue_fields",
    "rebuild",
    "rebuild_after_import",
    "rebuild_with_stored_checkpoint",
    "remove_tenant",
    "tenant_has_documents",
]


def index_later(issue: IssueItem, *, kind: str, data: dict[str, Any]) -> None:
    """Queue ``tracker.tasks.search_index_change`` for one recorded change; raises only for a bug (no such task).

    A broker that does not answer is logged: the change stands in DynamoDB, and the document
    catches up with the issue's next change, or with ``manage.py search_index check --fix``.
    """
    from tracker import optional_redis

    if not settings.SEARCH_INDEX_QUEUE:
        return
    if kind.startswith("comment."):
        comment_key = str(data.get("comment") or "")
        if not comment_key:
            return
    elif kind.startswith("issue."):
        comment_key = ""
    else:  # attachments and the like change no word of the issue
        return
    change: dict[str, Any] = {"tenant": issue.tenant, "project_key": issue.project_key, "number": int(issue.number)}
    if comment_key:
        change["comment_key"] = comment_key
    touched = data.get("labels") if kind.startswith("issue.") else None
    if isinstance(touched, dict):  # labels this change added or removed: their entries are checked too
        change["labels_also"] = sorted({*touched.get("added", ()), *touched.get("removed", ())})
    if optional_redis.paused():
        log.warning("Redis is paused: the search index of %s on %s-%s is not queued", kind, *list(change.values())[1:3])
        return
    index_change = enqueue.task(enqueue.SEARCH_INDEX_CHANGE)  # a wrong name is a bug, not a broker that is down
    try:
        index_change.apply_async(kwargs=change, retry=False)
    except enqueue.BROKER_ERRORS as error:  # the change is saved; the check and rebuild find the document
        log.warning("could not queue the search index of %s on %s", kind, change, exc_info=True)
        optional_redis.failed("queue search indexing", error)


def remove_tenant(tenant: str, *, using: str = "default") -> int:
    """Delete every document of ``tenant`` (offboarding) and its rebuild checkpoints; how many documents."""
    deleted, _ = SearchDocument.objects.using(using).filter(tenant=tenant).delete()
    IndexCheckpoint.objects.using(using).filter(name__startswith=f"rebuild:{tenant}:").delete()
    IndexCheckpoint.objects.using(using).filter(name=f"rebuild:{tenant}").delete()
    return int(deleted)


def tenant_has_documents(tenant: str, *, using: str = "default") -> bool:
    return SearchDocument.objects.using(using).filter(tenant=tenant).exists()
