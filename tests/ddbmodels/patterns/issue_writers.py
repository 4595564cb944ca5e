"""A writer process for the sort-key sequence under contention (run with the "spawn" start method).

It imports nothing from the test session: each of its threads creates ``per_thread`` issues in
one project and reports what it was told (see ``tests.ddbmodels.processes``).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from ddbmodels import issues
from ddbmodels.core import capacity
from tests.ddbmodels.processes import claim_until_won, write_in_threads


def _writer(
    tenant: str, key: str, process: int, per_thread: int, thread: int, start: threading.Barrier
) -> dict[str, Any]:
    claims: list[tuple[int, str, int]] = []
    given_up = 0
    start.wait(timeout=60)
    with capacity.measure() as meter:
        for i in range(per_thread):
            title = f"p{process}-t{thread}-i{i}"
            claimed, gave_up = claim_until_won(
                lambda title=title: issues.issue_create(tenant=tenant, project_key=key, title=title, reporter="writer")
            )
            claims.append((claimed.number, title, claimed.attempts))
            given_up += gave_up
    return {"claims": claims, "given_up": given_up, "conditional_failures": meter.conditional_failures}


def write_issues(results: Any, barrier: Any, *, tenant: str, key: str, per_thread: int, **options: Any) -> None:
    """Process entry point: every thread creates ``per_thread`` issues of ``tenant``'s project ``key``."""
    write_in_threads(
        results,
        barrier,
        warm_up=lambda: issues.issue_numbers(tenant=tenant, project_key=key),
        writer=functools.partial(_writer, tenant, key, options["process"], per_thread),
        **options,
    )
