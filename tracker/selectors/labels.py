"""A team's managed labels as pages see them: the catalogue, cached in Redis (cache-aside), dropped by every label
write (``services.labels``); one label read consistently where a form needs its version."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.http import Http404

from ddbmodels import labels as ddb_labels
from ddbmodels.issues import LABEL_MAX
from ddbmodels.labels import Label
from tracker.cache import cached, store
from tracker.issue_terms import LABEL_RE
from tracker.models import Tenant


def labels_cache_key(tenant: str) -> str:
    return f"ddb:labels:{tenant}"


def change_job_name(tenant: str, label: str) -> str:
    """The job that moves a label's issues off it (a rename or delete of more than fit in one request)."""
    return f"label_change:{tenant}:{label}"


def label_catalogue(*, tenant: Tenant, fresh: bool = False) -> list[Label]:
    """Every label the team ever used, by name (gone ones too): Redis, or one Query of the registry (≈ 0.5–1.5 RCU).

    ``fresh``: the Query whatever the cache holds, and the cache refreshed (the labels page: a label an issue
    form created a moment ago is listed at once; the forms and lists take the cached copy, ≤ 5 minutes old).
    """
    if fresh:
        found = ddb_labels.label_catalogue(tenant.slug)
        store(
            labels_cache_key(tenant.slug),
            [dataclasses.asdict(label) for label in found],
            settings.PROJECT_CACHE_SECONDS,
        )
        return found
    return cached(
        labels_cache_key(tenant.slug),
        settings.PROJECT_CACHE_SECONDS,
        lambda: ddb_labels.label_catalogue(tenant.slug),
        dump=lambda found: [dataclasses.asdict(label) for label in found],
        restore=lambda raws: [Label(**raw) for raw in raws],
    )


def label_colours(found: Iterable[Label]) -> dict[str, str]:
    """Name → palette colour of every label, for the ``label_class`` filter (a label not in it: the default)."""
    return {label.name: label.colour for label in found}


def catalogue_colours(*, tenant: Tenant) -> dict[str, str]:
    """``label_colours`` of the team's (cached) catalogue: what a page showing labels hands its template."""
    return label_colours(label_catalogue(tenant=tenant))


def _a_name(name: str) -> bool:
    """A label's name could be ``name`` (an address may hold anything: one over ``LABEL_MAX`` is no key to read,
    and one over 1,024 bytes would make DynamoDB refuse the GetItem)."""
    return len(name) <= LABEL_MAX and bool(LABEL_RE.match(name))


def label_access(*, tenant: Tenant, name: str) -> Label:
    """The label as stored now (one consistent GetItem, 1 RCU): its version for a form; Http404 if never used."""
    label = ddb_labels.label_get(tenant.slug, name) if _a_name(name) else None
    if label is None:
        raise Http404("No such label.")
    return label


def label_progress(*, tenant: Tenant, name: str) -> Label:
    """The label as stored a moment ago (one GetItem, eventually consistent: 0.5 RCU): the progress of a rename or
    delete, asked every few seconds by the labels page while one runs; Http404 if the team never had it."""
    label = ddb_labels.label_get(tenant.slug, name, consistent=False) if _a_name(name) else None
    if label is None:
        raise Http404("No such label.")
    return label


def label_issue_count(*, tenant: Tenant, name: str, limit: int) -> int:
    """How many issues carry the label, up to ``limit`` + 1 (meaning "more than ``limit``"): one COUNT Query of one
    page of its entries, ≤ 2 RCU whatever the label's size (the confirm pages, read on every GET)."""
    return ddb_labels.label_issue_count(tenant.slug, name, limit=limit)


def label_issues(*, tenant: Tenant, name: str, limit: int = 25) -> list[dict[str, Any]]:
    """The first ``limit`` issues carrying the label (its entries, consistent: ≤ 2 RCU), each
    {project, number, title, status}: what the delete and rename confirm pages list."""
    found = []
    for entry in ddb_labels.label_entries(tenant.slug, name, limit=limit):
        project, number = ddb_labels.issue_of(entry["s"]["S"])
        status = entry["s"]["S"].split("#", 1)[0]
        found.append({"project": project, "number": number, "title": entry.get("t", {}).get("S", ""), "status": status})
    return found


def label_gone(*, tenant: Tenant, name: str | None) -> Label | None:
    """The label ``name`` if the team renamed or deleted it (the cached catalogue): a list filtered by it says so."""
    if not name:
        return None
    return next((lb for lb in label_catalogue(tenant=tenant) if lb.name == name and lb.state == ddb_labels.GONE), None)
