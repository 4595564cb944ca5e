"""The search documents: one row per issue and one per comment, with the version it was made from.

The rows are ordinary Django rows; the engine's index over ``title`` and ``body`` is added by the
migration per database (an FTS5 table kept in step by triggers on SQLite, a generated weighted
``tsvector`` with a GIN index on PostgreSQL). ``gone`` marks a tombstoned issue or a deleted
comment: the row stays with ``GONE`` as its version, so a late task that read the item before it
went cannot bring it back (versions only grow); gone rows are out of the engine's index.
"""

from __future__ import annotations

from django.db import models

GONE = 2**62  # the version of a gone document: newer than any version an item will ever have


class SearchDocument(models.Model):
    """An issue (``comment_key`` empty) or one of its comments, as the search engine sees it."""

    tenant = models.CharField(max_length=50)
    project_key = models.CharField(max_length=10)
    number = models.BigIntegerField()
    comment_key = models.CharField(max_length=64, blank=True, default="")
    # The engine's tenant filter: one token made from the tenant (see engine.scope_token).
    scope = models.CharField(max_length=120)
    title = models.TextField(blank=True, default="")
    body = models.TextField(blank=True, default="")  # the description, or the comment's text
    # The filters' columns (issue documents only): labels as " bug ui " so one LIKE finds a label.
    status = models.CharField(max_length=20, blank=True, default="")
    labels = models.CharField(max_length=400, blank=True, default="")
    assignee = models.CharField(max_length=150, blank=True, default="")
    version = models.BigIntegerField()
    updated = models.DateTimeField()
    gone = models.BooleanField(default=False)

    class Meta:
        db_table = "search_document"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "project_key", "number", "comment_key"], name="search_doc_key")
        ]

    def __str__(self) -> str:
        what = f"comment {self.comment_key}" if self.comment_key else "issue"
        return f"{self.tenant}/{self.project_key}-{self.number} {what} v{self.version}"


class IndexCheckpoint(models.Model):
    """Where a rebuild of a tenant's documents got to (``indexing.rebuild``), so a killed run resumes."""

    name = models.CharField(max_length=120, unique=True)  # "rebuild:<tenant>[:<PROJECT>]"
    data = models.JSONField(default=dict)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "search_checkpoint"

    def __str__(self) -> str:
        return self.name
