"""Writing projects: the static item at sort key 0 of each collection — created, counted, held by an import.

None of these touches the project's version (``CollectionItem.version``): counts and an import's
hold are written with the low-level UpdateItem, so they never make an editor's save stale.
"""

from __future__ import annotations

from collections import Counter

from pynamodb.exceptions import PutError, UpdateError

from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, NotFound, is_conditional_failure
from ddbmodels.core.keys import TENANT_SLUG_RE, utcnow
from ddbmodels.issues.model import (
    PROJECT_KEY_RE,
    PROJECT_SK,
    STATUSES,
    CollectionItem,
    ProjectItem,
    collection_key,
)
from ddbmodels.issues.reads import project_get


@capacity.access_pattern("projects.create")
def project_create(
    *, tenant: str, key: str, name: str, description: str = "", created_by: str, importing: str | None = None
) -> ProjectItem:
    """PutItem SK=0 if attribute_not_exists(pk) — 1 WCU (+1 WCU for the sparse index entry).

    ``importing`` (an import's job name) creates it closed to new issues until
    ``project_import_finish``. Raises AlreadyExists when the tenant already has a project with this key.
    """
    if not TENANT_SLUG_RE.match(tenant) or not PROJECT_KEY_RE.match(key):
        raise ValueError(f"invalid tenant {tenant!r} or project key {key!r}")
    now = utcnow()
    project = ProjectItem(
        pk=collection_key(tenant, key),
        number=PROJECT_SK,
        name=name,
        description=description or None,
        created_by=created_by,
        created_at=now,
        updated_at=now,
        gsi_tenant=tenant,
        gsi_project_key=key,
        # A new project has no issues: counted as such at once, not "not counted yet" until the job runs
        issue_counts=dict.fromkeys(STATUSES, 0),
        counted_at=now,
        importing=importing,
    )
    try:
        project.save(condition=ProjectItem.pk.does_not_exist())
    except PutError as error:
        if is_conditional_failure(error):
            raise AlreadyExists(f"project {key} already exists", tenant=tenant, key=key) from error
        raise
    return project


@capacity.access_pattern("projects.import_start")
def project_import_start(*, tenant: str, key: str, job: str) -> None:
    """UpdateItem SK 0 SET importing if it exists and no other import holds it — 1 WCU.

    From now on the project takes no new issues (``tracker.services.issues`` refuses them) until
    ``project_import_finish``. The same job again is a no-op (a resumed import). Raises NotFound
    when the project does not exist, AlreadyExists when another import is writing it.
    """
    try:
        CollectionItem._get_connection().update_item(  # low-level: the project's version is left alone
            collection_key(tenant, key),
            str(PROJECT_SK),
            actions=[ProjectItem.importing.set(job)],
            condition=ProjectItem.pk.exists()
            & (ProjectItem.importing.does_not_exist() | (ProjectItem.importing == job)),
        )
    except UpdateError as error:
        if not is_conditional_failure(error):
            raise
        current = project_get(tenant=tenant, key=key)
        if current is None:
            raise NotFound("project not found", tenant=tenant, key=key) from error
        holder = current.importing
        raise AlreadyExists(f"project {key} is being imported", tenant=tenant, key=key, job=holder) from error


@capacity.access_pattern("projects.import_finish")
def project_import_finish(*, tenant: str, key: str, job: str) -> bool:
    """UpdateItem SK 0 REMOVE importing if this job holds it — 1 WCU. False when it did not (nothing changed)."""
    try:
        CollectionItem._get_connection().update_item(
            collection_key(tenant, key),
            str(PROJECT_SK),
            actions=[ProjectItem.importing.remove()],
            condition=ProjectItem.importing == job,
        )
    except UpdateError as error:
        if is_conditional_failure(error):
            return False
        raise
    return True


@capacity.access_pattern("projects.refresh_counts")
def project_counts_refresh(
    *, tenant: str, key: str, milestones: dict[str, dict[str, int]] | None = None
) -> dict[str, int]:
    """Query the collection projecting status (≈ 0.5 RCU per 4 KB read) + UpdateItem SK 0 (1 WCU).

    The static item's version is left alone, so a refresh never makes an editor's save stale.
    The same read gives each issue's milestone (``ms``): given a dict as ``milestones``, it is filled
    with the live issues by status per milestone id (``milestones.progress_write`` writes them).
    Raises NotFound when the project does not exist.
    """
    pk = collection_key(tenant, key)
    counts: Counter[str] = Counter()
    for item in CollectionItem.query(
        pk, range_key_condition=CollectionItem.number > PROJECT_SK, attributes_to_get=["st", "da", "k", "ms"]
    ):
        status = getattr(item, "status", None)
        if status and getattr(item, "deleted_at", None) is None:
            counts[status] += 1
            milestone = getattr(item, "milestone", None)
            if milestone and milestones is not None:
                per = milestones.setdefault(milestone, dict.fromkeys(STATUSES, 0))
                per[status] = per.get(status, 0) + 1
    now = utcnow()
    connection = CollectionItem._get_connection()
    try:
        connection.update_item(
            pk,
            str(PROJECT_SK),  # the low-level API takes key values serialized, as DynamoDB's JSON does
            actions=[
                ProjectItem.issue_counts.set({s: counts.get(s, 0) for s in STATUSES}),
                ProjectItem.counted_at.set(now),
            ],
            condition=ProjectItem.pk.exists(),
        )
    except UpdateError as error:
        if is_conditional_failure(error):
            raise NotFound("project not found", tenant=tenant, key=key) from error
        raise
    return {s: counts.get(s, 0) for s in STATUSES}
