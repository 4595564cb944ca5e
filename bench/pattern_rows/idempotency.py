"""The API's exactly-once rows (``bench/patterns.py``): a create keyed with the request's fingerprint, kept answers.

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

import uuid
from typing import Any

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels import orders
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
    "issues.replay (unused key)": Row(
        "what every API create reads first (R22-3): GetItem, consistent, of the key's record, none found: 1 RCU",
        fixed(1, 0, 1),
    ),
    "issues.replay": Row(
        "a create sent again: GetItem, consistent, of the key's record (1 RCU) + of the issue it names (1 RCU per "
        "4 KB): answered whatever changed since, nothing written",
        fixed(2, 0, 2),
    ),
    "comments.replay": Row(
        "a comment sent again: GetItem, consistent, of the key's record (1 RCU) + of the comment (1 RCU per 4 KB)",
        fixed(2, 0, 2),
    ),
    "orders.replay": Row(
        "an order sent again: GetItem, consistent, of the key's record (1 RCU) + of the order (1 RCU): no number drawn",
        fixed(2, 0, 2),
    ),
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
    run_replays(run, key, created.number)


def run_replays(run: Workload, key: str, number: int) -> None:
    """Each API create's first read (the key's record: none yet), and the replays of an issue, a comment and an
    order whose keys made them (the record, then the item: nothing written)."""
    unused = run(
        "issues.replay (unused key)",
        ddb_issues.issue_replay,
        tenant=TENANT,
        project_key=PROJECT,
        idempotency_key=uuid.uuid4().hex,
        fingerprint=FINGERPRINT,
    )
    bench.check(unused is None, f"an unused key replayed {unused}")
    again = run(
        "issues.replay",
        ddb_issues.issue_replay,
        tenant=TENANT,
        project_key=PROJECT,
        idempotency_key=key,
        fingerprint=FINGERPRINT,
    )
    bench.check(again is not None and again.claimed.number == number, f"the issue's replay is {again}")
    comment_key = uuid.uuid4().hex
    where: dict[str, Any] = {"tenant": TENANT, "project_key": PROJECT, "number": number, "idempotency_key": comment_key}
    added = bench.unmetered(lambda: ddb_comments.comment_add(author="bench", body="Replayed", **where))
    found = run("comments.replay", ddb_comments.comment_replay, **where)
    bench.check(found is not None and found.key == added.comment.key, f"the comment's replay is {found}")
    order_key = uuid.uuid4().hex
    placed = bench.unmetered(
        lambda: orders.order_place(
            customer=TENANT,
            product="seats",
            quantity=1,
            delivery="standard",
            placed_by="bench",
            idempotency_key=order_key,
        )
    )
    order = run("orders.replay", orders.order_replay, customer=TENANT, idempotency_key=order_key)
    bench.check(order is not None and order.number == placed.number, f"the order's replay is {order}")
