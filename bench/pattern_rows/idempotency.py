"""The API's exactly-once rows (``bench/patterns.py``): a create keyed with the request's fingerprint, kept answers.

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

import uuid

from ddbmodels import issues as ddb_issues
from ddbmodels.core.errors import KeyReused
from ddbmodels.idempotency import answer_get, answer_put
from devtools import bench
from devtools.bench import Cost
from pattern_rows.issue_writes import IssueWrite
from pattern_rows.rows import ROWS, Row, counted, fixed, issue_write
from pattern_rows.workload import PROJECT, SPLIT, TENANT, Workload

FINGERPRINT = "f" * 64  # a request's sha256 hex, as tracker.api.idempotency makes it
KEPT = '{"marked": 3}'  # an inbox marked read: the answer kept under its key

IDEMPOTENCY_ROWS: dict[str, Row] = {
    "issues.create (idempotency key, fingerprint)": issue_write(
        "the keyed create (the API's): the record holds the request's 64-hex fingerprint too, still ≤ 1 KB, so the "
        "same units: 2 WCU per KB for the record in the transaction and 1 WCU for its `by_tenant` entry",
        Cost(1, 0, 2),
    ),
    "idempotency.answer_put": Row(
        "PutItem attribute_not_exists ≤ 1 KB (1 WCU) + its `by_tenant` entry (1 WCU)", fixed(0, 2, 1)
    ),
    "idempotency.answer_get": Row("GetItem, consistent, of a record ≤ 4 KB: 1 RCU", fixed(1, 0, 1)),
}
ROWS.update(IDEMPOTENCY_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)  # the variants, each metered


def run_idempotency(run: Workload) -> None:
    """An API create with its key and fingerprint, the same request again (a replay: no row, nothing written), the
    key with another request refused; an inbox marked read keeps its answer, which the same key reads back."""
    key = uuid.uuid4().hex
    fields = {"tenant": TENANT, "project_key": PROJECT, "reporter": "bench", "idempotency_key": key}
    created = run(
        "issues.create (idempotency key, fingerprint)",
        ddb_issues.issue_create,
        basis=IssueWrite(TENANT, PROJECT, idempotency_key=key),
        title="Created by the API",
        fingerprint=FINGERPRINT,
        **fields,
    )

    def reused() -> bool:
        try:
            ddb_issues.issue_create(title="Another request", fingerprint="0" * 64, **fields)
        except KeyReused:
            return True
        return False

    bench.check(bench.unmetered(reused), "the key sent with another request was not refused")
    stored = bench.unmetered(
        lambda: ddb_issues.issue_get(tenant=TENANT, project_key=PROJECT, number=created.number, consistent=True)
    )
    bench.check(stored is not None and stored.title == "Created by the API", f"the keyed issue is {stored}")
    answer_key = f"api.0.{uuid.uuid4().hex}"
    kept = {"tenant": TENANT, "kind": "inbox-read", "key": answer_key}
    run("idempotency.answer_put", answer_put, status=200, body=KEPT, fingerprint=FINGERPRINT, **kept)
    found = run("idempotency.answer_get", answer_get, **kept)
    bench.check(found is not None and found.body == KEPT, f"the kept answer read back is {found}")
