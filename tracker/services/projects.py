"""Project writes."""

from __future__ import annotations

from ddbmodels import issues as ddb_projects
from ddbmodels import milestones as ddb_milestones
from ddbmodels.issues import ProjectItem
from tracker.cache import invalidate
from tracker.models import Membership
from tracker.selectors.milestones import milestone_list, milestones_cache_key
from tracker.selectors.projects import project_cache_key, project_list_cache_key
from tracker.services.permissions import require_role


def project_create(*, membership: Membership, key: str, name: str, description: str = "") -> ProjectItem:
    """Create the tenant's project (owners only). Raises AlreadyExists for a taken key."""
    require_role(membership, "owner")
    tenant = membership.tenant.slug
    project = ddb_projects.project_create(
        tenant=tenant,
        key=key,
        name=name,
        description=description,
        created_by=membership.user.get_username(),
    )
    invalidate(project_cache_key(tenant, key), project_list_cache_key(tenant))
    return project


def project_counts_refresh(*, tenant: str, key: str) -> dict[str, int]:
    """Recount the project's issues by status onto its static item; drop its cache entries.

    The same read counts each milestone's issues: written onto the milestones whose progress changed
    (1 WCU each; compared with the cached milestone list, so no read when it is cached).
    """
    per_milestone: dict[str, dict[str, int]] = {}
    counts = ddb_projects.project_counts_refresh(tenant=tenant, key=key, milestones=per_milestone)
    invalidate(project_cache_key(tenant, key), project_list_cache_key(tenant))
    if ddb_milestones.progress_write(milestone_list(tenant=tenant, project_key=key), per_milestone):
        invalidate(milestones_cache_key(tenant, key))
    return counts
