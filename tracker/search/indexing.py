"""Documents made from DynamoDB items: one change at a time (the Celery task), a rebuild, a check, a tenant's removal.

Every write here reads the item **as it is now** in DynamoDB and keeps a document only if the
version it was made from is newer than the one stored (``_upsert``: an UPDATE conditioned on
``version < new``, or an INSERT the unique key refuses to do twice). So a task run twice, or two
tasks of one issue finishing in the wrong order, leave the newest version: never an older one.
A tombstoned issue or a deleted comment makes its document ``gone`` with the version ``GONE``,
which no late task can overwrite; a tombstoned issue's comments go with it.

Costs, per recorded change: one consistent GetItem (1 RCU per 4 KB) and 1–3 SQL statements
(an UPDATE, and a SELECT + INSERT the first time); on SQLite the FTS5 triggers re-index the
row's words (measured in bench/search.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction

from ddbmodels import comments as ddb_comments
from ddbmodels.comments import CommentItem
from ddbmodels.core import capacity
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues import IssueItem, issue_get, project_keys
from ddbmodels.issues.reads import issue_collection_page
from tracker.search.engine import scope_token
from tracker.search.models import GONE, IndexCheckpoint, SearchDocument

log = logging.getLogger(__name__)

ISSUE_PAGE = 100  # issues a rebuild reads per Query (≈ 1 KB each with the description: 12.5–25 RCU)
COMMENT_PAGE = 100

Progress = Callable[[str], None]


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
            return _gone(_key(tenant, project_key, number, comment_key), using=using)
        return index_comment_item(tenant, project_key, number, comment, using=using)
    issue = issue_get(tenant=tenant, project_key=project_key, number=number, consistent=True)
    if issue is None:
        return "missing"
    return index_issue_item(issue, using=using)


def index_later(issue: IssueItem, *, kind: str, data: dict[str, Any]) -> None:
    """Queue ``tracker.tasks.search_index_change`` for one recorded change; never raises.

    A broker that does not answer is logged: the change stands in DynamoDB, and the document
    catches up with the issue's next change, or with ``manage.py search_index check --fix``.
    """
    from tracker import optional_redis
    from tracker.tasks import search_index_change  # the tasks module imports the services

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
    change = {"tenant": issue.tenant, "project_key": issue.project_key, "number": int(issue.number)}
    if comment_key:
        change["comment_key"] = comment_key
    if optional_redis.paused():
        log.warning("Redis is paused: the search index of %s on %s-%s is not queued", kind, *list(change.values())[1:3])
        return
    try:
        search_index_change.apply_async(kwargs=change, retry=False)
    except Exception as error:  # noqa: BLE001  (the change is saved; the check and rebuild find the document)
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


# ---------------------------------------------------------------------------------------------
# Reading DynamoDB page by page under an RCU budget
# ---------------------------------------------------------------------------------------------


@dataclass
class _Reader:
    """DynamoDB reads one request at a time, held to ``rcu_per_second`` (None: as fast as it answers)."""

    rcu_per_second: float | None
    meter: capacity.CapacityMeter = field(default_factory=capacity.CapacityMeter)

    def __post_init__(self) -> None:
        self._bucket = (
            TokenBucket(self.rcu_per_second, burst=max(self.rcu_per_second, 50.0)) if self.rcu_per_second else None
        )

    def read(self, call: Callable[[], Any]) -> Any:
        with capacity.measure() as used:
            answer = call()
        self.meter.add(used)
        if self._bucket is not None:
            self._bucket.take(used.rcu)  # waits off what this read cost before the next one
        return answer

    def issues(self, tenant: str, project_key: str, after: int) -> tuple[list[IssueItem], int | None]:
        return self.read(  # type: ignore[no-any-return]
            lambda: issue_collection_page(tenant=tenant, project_key=project_key, after=after, limit=ISSUE_PAGE)
        )

    def comments(self, tenant: str, project_key: str, number: int) -> list[CommentItem]:
        stream = ddb_comments.issue_stream(tenant, project_key, number)
        found: list[CommentItem] = []
        after: str | None = None
        while True:
            page = self.read(partial(ddb_comments.comment_page, stream=stream, size=COMMENT_PAGE, after=after))
            found.extend(page.comments)
            if not page.newer_than:
                return found
            after = page.newer_than


def _projects(reader: _Reader, tenant: str, project_key: str | None) -> list[str]:
    if project_key:
        return [project_key]
    return sorted(reader.read(lambda: project_keys(tenant=tenant)))


def checkpoint_name(tenant: str, project_key: str | None = None) -> str:
    return f"rebuild:{tenant}:{project_key}" if project_key else f"rebuild:{tenant}"


def rebuild(
    *,
    tenant: str,
    project_key: str | None = None,
    checkpoint: dict[str, Any] | None = None,
    save_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    progress: Progress | None = None,
    rcu_per_second: float | None = None,
    using: str = "default",
) -> dict[str, Any]:
    """(Re)write the documents of a tenant (or one project) from DynamoDB; resumable from ``checkpoint``.

    Reads: Query ``projects`` (0.5 RCU), then per project its collection one page of ISSUE_PAGE
    issues at a time (0.5 RCU per 4 KB), and per live issue a Query of its comments (0.5 RCU per
    4 KB, at least one request an issue: comments have no tenant key). Writes only what is newer
    (``_upsert``), in one database transaction per page. ``checkpoint`` is what ``save_checkpoint``
    was last given — ``{"done": [projects finished], "project": key, "after": number}``, saved after
    every page — so a killed run resumes after its last page; the returned report has the counts
    and the RCU spent. ``rcu_per_second`` holds the reads to that budget.
    """
    reader = _Reader(rcu_per_second)
    state = dict(checkpoint or {})
    done: list[str] = list(state.get("done", []))
    counts = {"issues": 0, "comments": 0, "written": 0, "gone": 0}
    say = progress or (lambda line: None)
    for key in _projects(reader, tenant, project_key):
        if key in done:
            continue
        after = int(state.get("after", 0)) if state.get("project") == key else 0
        while True:
            page, more = reader.issues(tenant, key, after)
            with transaction.atomic(using=using):
                for issue in page:
                    counts["issues"] += 1
                    outcome = index_issue_item(issue, using=using)
                    counts["written"] += outcome in ("created", "updated")
                    counts["gone"] += outcome == "removed"
                    if issue.is_tombstone:
                        continue
                    for comment in reader.comments(tenant, key, int(issue.number)):
                        counts["comments"] += 1
                        outcome = index_comment_item(tenant, key, int(issue.number), comment, using=using)
                        counts["written"] += outcome in ("created", "updated")
            if page:
                after = int(page[-1].number)
            state = {"done": done, "project": key, "after": after}
            if save_checkpoint is not None:
                save_checkpoint(state)
            say(
                f"{tenant}/{key}: up to #{after}, {counts['issues']} issues and {counts['comments']} comments read, "
                f"{counts['written']} documents written, {reader.meter.rcu:g} RCU"
            )
            if more is None:
                break
        done.append(key)
        state = {"done": done}
        if save_checkpoint is not None:
            save_checkpoint(state)
    return {"tenant": tenant, **counts, "rcu": round(reader.meter.rcu, 1), "requests": reader.meter.requests}


def rebuild_after_import(*, tenant: str, project_key: str) -> dict[str, Any] | None:
    """``rebuild`` of a project just bulk-loaded (an import records no changes); a database error is logged.

    The import itself is done and stays done: ``manage.py search_index rebuild --tenant`` catches up later.
    """
    try:
        return rebuild(tenant=tenant, project_key=project_key)
    except DatabaseError:
        log.warning("the search documents of %s/%s were not built after its import", tenant, project_key, exc_info=True)
        return None


def rebuild_with_stored_checkpoint(
    *,
    tenant: str,
    project_key: str | None = None,
    restart: bool = False,
    progress: Progress | None = None,
    rcu_per_second: float | None = None,
    using: str = "default",
) -> dict[str, Any]:
    """``rebuild`` with its checkpoint kept in ``IndexCheckpoint`` (the command's way); deleted when finished."""
    name = checkpoint_name(tenant, project_key)
    stored, _ = IndexCheckpoint.objects.using(using).get_or_create(name=name)
    if restart:
        stored.data = {}

    def save(state: dict[str, Any]) -> None:
        stored.data = state
        stored.save(using=using)

    report = rebuild(
        tenant=tenant,
        project_key=project_key,
        checkpoint=stored.data or None,
        save_checkpoint=save,
        progress=progress,
        rcu_per_second=rcu_per_second,
        using=using,
    )
    stored.delete()
    return report


# ---------------------------------------------------------------------------------------------
# Consistency check
# ---------------------------------------------------------------------------------------------


@dataclass
class CheckReport:
    tenant: str
    missing: list[str] = field(default_factory=list)  # an item without its document
    stale: list[str] = field(default_factory=list)  # a document older than its item (or gone while it lives)
    extra: list[str] = field(default_factory=list)  # a live document whose item is gone
    fixed: int = 0
    rcu: float = 0.0

    @property
    def consistent(self) -> bool:
        return not (self.missing or self.stale or self.extra)

    def as_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "missing": self.missing,
            "stale": self.stale,
            "extra": self.extra,
            "fixed": self.fixed,
            "rcu": round(self.rcu, 1),
        }


def check(
    *,
    tenant: str,
    fix: bool = False,
    progress: Progress | None = None,
    rcu_per_second: float | None = None,
    using: str = "default",
) -> CheckReport:
    """Compare every issue's and comment's version with its document: missing, stale, extra; ``fix`` repairs them.

    Reads what ``rebuild`` reads; the documents of a project are one SQL query. Fixing writes the
    item as read (a gone document of a live item too), and marks an extra document gone.
    """
    reader = _Reader(rcu_per_second)
    report = CheckReport(tenant=tenant)
    say = progress or (lambda line: None)
    documents = SearchDocument.objects.using(using).filter(tenant=tenant)
    keys = set(_projects(reader, tenant, None)) | set(documents.values_list("project_key", flat=True).distinct())
    for key in sorted(keys):
        _ProjectCheck(reader, report, tenant, key, fix=fix, using=using).run()
        say(
            f"{tenant}/{key}: {len(report.missing)} missing, {len(report.stale)} stale, {len(report.extra)} extra "
            f"so far, {reader.meter.rcu:g} RCU"
        )
    report.rcu = reader.meter.rcu
    return report


class _ProjectCheck:
    """One project's items against its documents (all of them read in one SQL query)."""

    def __init__(self, reader: _Reader, report: CheckReport, tenant: str, key: str, *, fix: bool, using: str) -> None:
        self.reader, self.report, self.tenant, self.key, self.fix, self.using = reader, report, tenant, key, fix, using
        rows = SearchDocument.objects.using(using).filter(tenant=tenant, project_key=key)
        self.stored = {
            (number, comment_key): (version, gone)
            for number, comment_key, version, gone in rows.values_list("number", "comment_key", "version", "gone")
        }
        self.seen: set[tuple[int, str]] = set()

    def _compare(self, name: str, found: tuple[int, str], version: int, write: Callable[[], str]) -> None:
        self.seen.add(found)
        document = self.stored.get(found)
        if document is None:
            self.report.missing.append(name)
        elif document[1] or document[0] < version:
            self.report.stale.append(name)
        else:
            return
        if self.fix:
            write()
            self.report.fixed += 1

    def run(self) -> None:
        tenant, key, using = self.tenant, self.key, self.using
        after = 0
        while True:
            page, more = self.reader.issues(tenant, key, after)
            for issue in page:
                number = int(issue.number)
                name = f"{key}-{number}"
                if issue.is_tombstone:
                    continue  # its documents, if any, are reported extra below unless gone
                write_issue = partial(index_issue_item, issue, using=using, force=True)
                self._compare(name, (number, ""), int(issue.version or 0), write_issue)
                for comment in self.reader.comments(tenant, key, number):
                    write = partial(index_comment_item, tenant, key, number, comment, using=using, force=True)
                    self._compare(
                        f"{name} comment {comment.key}", (number, comment.key), int(comment.version or 0), write
                    )
            if page:
                after = int(page[-1].number)
            if more is None:
                break
        for (number, comment_key), (_, gone) in sorted(self.stored.items()):
            if gone or (number, comment_key) in self.seen:
                continue
            self.report.extra.append(f"{key}-{number}" + (f" comment {comment_key}" if comment_key else ""))
            if self.fix:
                if comment_key:
                    _gone(_key(tenant, key, number, comment_key), using=using)
                else:
                    _issue_gone(tenant, key, number, using=using)
                self.report.fixed += 1
