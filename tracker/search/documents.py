"""A search document written from a DynamoDB item as read: only ever a newer version, gone for good.

Every write here keeps a document only if the version it was made from is newer than the one
stored (``_upsert``: an UPDATE conditioned on ``version < new``, or an INSERT the unique key
refuses to do twice). So a task run twice, or two tasks of one issue finishing in the wrong
order, leave the newest version: never an older one. A tombstoned issue or a deleted comment
makes its document ``gone`` with the version ``GONE``, which no late task can overwrite; a
tombstoned issue's comments go with it. Used by the change task (``indexing``), ``rebuild``
and ``check``.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from ddbmodels import comments as ddb_comments
from ddbmodels.comments import CommentItem
from ddbmodels.issues import IssueItem, issue_get
from tracker.search.engine import scope_token
from tracker.search.models import GONE, SearchDocument


def _key(tenant: str, project_key: str, number: int, comment_key: str = "") -> dict[str, Any]:
    return {"tenant": tenant, "project_key": project_key, "number": number, "comment_key": comment_key}


def issue_fields(issue: IssueItem) -> dict[str, Any]:
    """The issue document's columns (``_upsert`` adds the version)."""
    return {
        "scope": scope_token(issue.tenant),
        "title": issue.title or "",
        "body": issue.description or "",
        "status": issue.status or "",
        "labels": f" {' '.join(sorted(issue.labels))} " if issue.labels else "",
        "assignee": issue.assignee or "",
        "updated": issue.updated_at,
    }


def comment_fields(tenant: str, comment: CommentItem) -> dict[str, Any]:
    return {"scope": scope_token(tenant), "title": "", "body": comment.body or "", "updated": comment.updated_at}


def _upsert(key: dict[str, Any], fields: dict[str, Any], version: int, *, using: str, force: bool = False) -> str:
    """Write the document if ``version`` is newer than the stored one: "created", "updated" or "unchanged"."""
    rows = SearchDocument.objects.using(using).filter(**key)
    for _ in range(2):
        newer = rows if force else rows.filter(version__lt=version)
        if newer.update(**fields, version=version, gone=False):
            return "updated"
        if rows.exists():
            return "unchanged"
        try:
            with transaction.atomic(using=using):
                SearchDocument.objects.using(using).create(**key, **fields, version=version, gone=False)
            return "created"
        except IntegrityError:  # another task created it meanwhile: compare with that one
            continue
    return "unchanged"


def _gone(key: dict[str, Any], *, using: str) -> str:
    """Mark the document gone for good (its words leave the index); a row is kept so no late task revives it."""
    rows = SearchDocument.objects.using(using).filter(**key)
    if rows.exclude(gone=True).update(gone=True, version=GONE, title="", body="", status="", labels="", assignee=""):
        return "removed"
    if rows.exists():
        return "unchanged"
    fields = {"scope": scope_token(key["tenant"]), "updated": _epoch(), "gone": True}
    try:
        with transaction.atomic(using=using):
            SearchDocument.objects.using(using).create(**key, **fields, version=GONE)
    except IntegrityError:
        return _gone(key, using=using)
    return "removed"


def _epoch() -> Any:
    from datetime import UTC, datetime

    return datetime(1970, 1, 1, tzinfo=UTC)


def _issue_gone(tenant: str, project_key: str, number: int, *, using: str) -> str:
    outcome = _gone(_key(tenant, project_key, number), using=using)
    SearchDocument.objects.using(using).filter(
        tenant=tenant, project_key=project_key, number=number, gone=False
    ).exclude(comment_key="").update(gone=True, version=GONE, body="")
    return outcome


def index_issue_item(issue: IssueItem, *, using: str = "default", force: bool = False) -> str:
    """The issue's document from ``issue`` as read (a tombstone: gone, with its comments)."""
    tenant, project_key, number = issue.tenant, issue.project_key, int(issue.number)
    if issue.is_tombstone:
        return _issue_gone(tenant, project_key, number, using=using)
    return _upsert(
        _key(tenant, project_key, number), issue_fields(issue), int(issue.version or 0), using=using, force=force
    )


def index_comment_item(
    tenant: str, project_key: str, number: int, comment: CommentItem, *, using: str = "default", force: bool = False
) -> str:
    key = _key(tenant, project_key, number, comment.key)
    return _upsert(key, comment_fields(tenant, comment), int(comment.version or 0), using=using, force=force)


def mark_gone(tenant: str, project_key: str, number: int, comment_key: str = "", *, using: str = "default") -> str:
    """A comment's document gone, or an issue's with its comments': "removed" or "unchanged"."""
    if comment_key:
        return _gone(_key(tenant, project_key, number, comment_key), using=using)
    return _issue_gone(tenant, project_key, number, using=using)


def index_change(
    *, tenant: str, project_key: str, number: int, comment_key: str | None = None, using: str = "default"
) -> str:
    """Bring one document up to DynamoDB's current item (the Celery task's work). Idempotent, order-free.

    An issue: GetItem, consistent — 1 RCU per 4 KB. A comment: GetItem of the comment, consistent.
    """
    if comment_key:
        comment = ddb_comments.comment_get(
            stream=ddb_comments.issue_stream(tenant, project_key, number), key=comment_key, consistent=True
        )
        if comment is None:  # deleted (or never written): its words leave the index
            return mark_gone(tenant, project_key, number, comment_key, using=using)
        return index_comment_item(tenant, project_key, number, comment, using=using)
    issue = issue_get(tenant=tenant, project_key=project_key, number=number, consistent=True)
    if issue is None:
        return "missing"
    return index_issue_item(issue, using=using)
