"""The consistency check: every issue's and comment's version against its document; ``fix`` repairs.

``manage.py search_index check [--tenant SLUG] [--fix]`` reads what the rebuild reads and reports
each issue and comment whose document is **missing**, **stale** (an older version, or gone while
the item lives) or **extra** (a live document whose item is gone); ``--fix`` writes them from a
consistent read of the item, only ever a newer version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tracker.search.documents import index_change, mark_gone
from tracker.search.models import SearchDocument
from tracker.search.reader import Progress, Reader, projects_to_read


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
    reader = Reader(rcu_per_second)
    report = CheckReport(tenant=tenant)
    say = progress or (lambda line: None)
    documents = SearchDocument.objects.using(using).filter(tenant=tenant)
    keys = set(projects_to_read(reader, tenant, None)) | set(documents.values_list("project_key", flat=True).distinct())
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

    def __init__(self, reader: Reader, report: CheckReport, tenant: str, key: str, *, fix: bool, using: str) -> None:
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
                # a fix reads the item again, consistently, and writes only a newer version: the page
                # read may be a moment old, and a forced write of it could revive what was deleted
                write_issue = partial(index_change, tenant=tenant, project_key=key, number=number, using=using)
                self._compare(name, (number, ""), int(issue.version or 0), write_issue)
                for comment in self.reader.comments(tenant, key, number):
                    write = partial(
                        index_change,
                        tenant=tenant,
                        project_key=key,
                        number=number,
                        comment_key=comment.key,
                        using=using,
                    )
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
            if self.fix:  # gone only if a consistent read says so (a page read may miss the newest items)
                done = index_change(
                    tenant=tenant, project_key=key, number=number, comment_key=comment_key or None, using=using
                )
                if done == "missing":  # no such issue, read consistently: its document goes
                    mark_gone(tenant, key, number, comment_key, using=using)
                self.report.fixed += 1
