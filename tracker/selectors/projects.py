"""Projects as views see them: cached in Redis (cache-aside), invalidated by every write."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404

from ddbmodels import issues as ddb_issues
from ddbmodels.issues import PROJECT_KEY_RE, ProjectItem
from tracker.cache import cached
from tracker.models import Tenant


def project_cache_key(tenant: str, key: str) -> str:
    return f"ddb:project:{tenant}:{key}"


def project_list_cache_key(tenant: str) -> str:
    return f"ddb:projects:{tenant}"


def _dump(item: ProjectItem | None) -> dict | None:
    return ddb_issues.project_dump(item) if item is not None else None


def _restore(raw: dict | None) -> ProjectItem | None:
    return ddb_issues.project_load(raw) if raw is not None else None


def project_get(*, tenant: Tenant, key: str) -> ProjectItem | None:
    """The project, from Redis or one GetItem (0.5 RCU). Missing projects are cached too."""
    return cached(
        project_cache_key(tenant.slug, key),
        settings.PROJECT_CACHE_SECONDS,
        lambda: ddb_issues.project_get(tenant=tenant.slug, key=key),
        dump=_dump,
        restore=_restore,
    )


def project_access(*, tenant: Tenant, key: str) -> ProjectItem:
    """The tenant's project, or Http404 (another tenant's project is just as missing)."""
    project = project_get(tenant=tenant, key=key) if PROJECT_KEY_RE.match(key) else None
    if project is None:
        raise Http404("No such project.")
    return project


def project_list(*, tenant: Tenant) -> list[ProjectItem]:
    """The tenant's projects, from Redis or one index Query + one BatchGetItem."""
    return cached(
        project_list_cache_key(tenant.slug),
        settings.PROJECT_CACHE_SECONDS,
        lambda: ddb_issues.project_list(tenant=tenant.slug),
        dump=lambda items: [ddb_issues.project_dump(item) for item in items],
        restore=lambda raws: [p for p in (_restore(raw) for raw in raws) if p is not None],
    )
