"""Celery tasks: thin — they call services, which the management commands call too."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from ddbmodels.projects import all_project_keys
from tracker.services.projects import project_counts_refresh


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=5)
def refresh_project_counts(tenant: str, key: str) -> dict[str, int]:
    """Recount one project's issues by status (debounced by the writes that queue it)."""
    cache.delete(f"counts-pending:{tenant}#{key}")
    return project_counts_refresh(tenant=tenant, key=key)


@shared_task(bind=True, acks_late=True)
def refresh_all_project_counts(self) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Nightly: every project of every tenant, enumerated from the sparse projects index."""
    keys = all_project_keys()
    for done, (tenant, key) in enumerate(keys, start=1):
        project_counts_refresh(tenant=tenant, key=key)
        self.update_state(state="PROGRESS", meta={"done": done, "total": len(keys)})
    return {"projects": len(keys)}
