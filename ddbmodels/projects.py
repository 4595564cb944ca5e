"""Projects: the static item at SK 0 of each collection, listed through the sparse index."""

from __future__ import annotations

from collections import Counter

from pynamodb.exceptions import DoesNotExist, PutError, UpdateError

from ddbmodels import capacity
from ddbmodels.errors import AlreadyExists, NotFound, is_conditional_failure
from ddbmodels.issues import (
    PROJECT_KEY_RE,
    PROJECT_SK,
    STATUSES,
    TENANT_SLUG_RE,
    CollectionItem,
    ProjectItem,
    ProjectsIndex,
    collection_key,
    utcnow,
)


@capacity.access_pattern("projects.create")
def project_create(*, tenant: str, key: str, name: str, description: str = "", created_by: str) -> ProjectItem:
    """PutItem SK=0 if attribute_not_exists(pk) — 1 WCU (+1 WCU for the sparse index entry).

    Raises AlreadyExists when the tenant already has a project with this key.
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
    )
    try:
        project.save(condition=ProjectItem.pk.does_not_exist())
    except PutError as error:
        if is_conditional_failure(error):
            raise AlreadyExists(f"project {key} already exists", tenant=tenant, key=key) from error
        raise
    return project


@capacity.access_pattern("projects.get")
def project_get(*, tenant: str, key: str) -> ProjectItem | None:
    """GetItem pk, SK=0, eventually consistent — 0.5 RCU. None when missing."""
    try:
        item = CollectionItem.get(collection_key(tenant, key), PROJECT_SK)
    except DoesNotExist:
        return None
    return item if isinstance(item, ProjectItem) else None


@capacity.access_pattern("projects.list")
def project_keys(*, tenant: str) -> list[str]:
    """Query index ``projects`` gt=tenant — 0.5 RCU per 4 KB of keys (≈ 80 projects per RCU)."""
    # The low-level Query: the model-level one would add a filter on the discriminator, which a
    # KEYS_ONLY index does not project.
    connection = CollectionItem._get_connection()
    keys: list[str] = []
    start_key = None
    while True:
        page = connection.query(tenant, index_name=ProjectsIndex.Meta.index_name, exclusive_start_key=start_key)
        keys.extend(entry["gk"]["S"] for entry in page.get("Items", []))
        start_key = page.get("LastEvaluatedKey")
        if not start_key:
            return keys


@capacity.access_pattern("projects.list")
def project_list(*, tenant: str) -> list[ProjectItem]:
    """Query index ``projects`` + BatchGetItem of the static items — 0.5 RCU per project + the Query."""
    keys = project_keys(tenant=tenant)
    found = {
        item.project_key: item
        for item in CollectionItem.batch_get([(collection_key(tenant, key), PROJECT_SK) for key in keys])
        if isinstance(item, ProjectItem)
    }
    return [found[key] for key in keys if key in found]


@capacity.access_pattern("projects.refresh_counts")
def project_counts_refresh(*, tenant: str, key: str) -> dict[str, int]:
    """Query the collection projecting status (≈ 0.5 RCU per 4 KB read) + UpdateItem SK 0 (1 WCU).

    The static item's version is left alone, so a refresh never makes an editor's save stale.
    Raises NotFound when the project does not exist.
    """
    pk = collection_key(tenant, key)
    counts: Counter[str] = Counter()
    for item in CollectionItem.query(
        pk, range_key_condition=CollectionItem.number > PROJECT_SK, attributes_to_get=["st", "da", "k"]
    ):
        status = getattr(item, "status", None)
        if status and getattr(item, "deleted_at", None) is None:
            counts[status] += 1
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


@capacity.access_pattern("projects.enumerate")
def all_project_keys() -> list[tuple[str, str]]:
    """Scan index ``projects`` (KEYS_ONLY, sparse) — 0.5 RCU per 4 KB: every (tenant, key) pair."""
    connection = CollectionItem._get_connection()
    found: list[tuple[str, str]] = []
    start_key = None
    while True:
        page = connection.scan(index_name=ProjectsIndex.Meta.index_name, exclusive_start_key=start_key)
        found.extend((entry["gt"]["S"], entry["gk"]["S"]) for entry in page.get("Items", []))
        start_key = page.get("LastEvaluatedKey")
        if not start_key:
            return sorted(found)
