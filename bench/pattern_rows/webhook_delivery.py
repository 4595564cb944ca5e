"""The workload and rows of webhook deliveries (``ddbmodels.webhooks.deliveries``; ``bench/patterns.py``).

One delivery of one endpoint: put (and put again: nothing written), claimed, finished as due again, claimed,
finished as delivered; the due index read for its shard while it was due. Floors from the items before and after
each write (read back unmetered) and the due index's entry (KEYS_ONLY + at). Kept in a module of their own:
``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from ddbmodels import webhooks
from ddbmodels.core import connection
from ddbmodels.events import new_sort_key
from devtools import bench
from devtools.bench import Cost, read_units
from devtools.bench.floors import index_write_units, update_units, write_units
from pattern_rows.rows import ROWS, Row, counted
from pattern_rows.workload import SPLIT, TENANT, Workload

TABLE_KEYS = ("pk", "s")
DUE_KEYS = ("dk", "na")
DUE_PROJECTED = ("at",)
PAYLOAD = '{"type":"issue.created","data":{"title":"' + "x" * 600 + '"}}'  # ≈ a typical delivery's body


def stored(endpoint_id: str, event_key: str) -> dict[str, Any] | None:
    """The delivery's item as stored (read unmetered)."""
    key = {"pk": {"S": webhooks.endpoint_key(TENANT, endpoint_id)}, "s": {"S": webhooks.delivery_sort(event_key)}}
    table = connection.table_name("webhooks")
    answer = bench.unmetered(lambda: connection.client().get_item(TableName=table, Key=key, ConsistentRead=True))
    item: dict[str, Any] | None = answer.get("Item")
    return item


def item_write(_result: Any, change: dict[str, Any]) -> Cost:
    """The item's write (the larger of before and after, per started KB) and its due entry's."""
    before, after = change["before"], change["after"]
    item = (
        write_units(bench.item_size(after))
        if before is None
        else update_units(bench.item_size(before), bench.item_size(after))
    )
    due = index_write_units(before, after, TABLE_KEYS, DUE_KEYS, DUE_PROJECTED)
    return Cost(0, item + due, 1)


def due_read(found: list[webhooks.Due], entry_bytes: int) -> Cost:
    """One Query of one due shard: 0.5 RCU per started 4 KB of the entries it returns."""
    return Cost(read_units(entry_bytes * len(found)), 0, 1)


WEBHOOK_DELIVERY_ROWS: dict[str, Row] = {
    "webhooks.delivery_put": Row(
        "PutItem attribute_not_exists(s): 1 WCU per started KB of the delivery (payload ≤ 2 KB) + 1 WCU for its "
        "due entry (KEYS_ONLY + at)",
        item_write,
    ),
    "webhooks.delivery_claim": Row(
        "UpdateItem SET at = at + 1, na = lease WHERE st = pending AND at = seen: 1 WCU per started KB of the larger "
        "of before and after + 2 WCU for its due entry (na, the index's sort key, moves: a delete and a put)",
        item_write,
    ),
    "webhooks.delivery_finish (due again)": Row(
        "UpdateItem SET al, lc, ld, le, na WHERE at = n: 1 WCU per started KB of the larger of before and after + "
        "2 WCU for its due entry (na moves)",
        item_write,
    ),
    "webhooks.delivery_finish (delivered)": Row(
        "UpdateItem SET st, da, al, lc, ld, le REMOVE dk, na WHERE at = n: 1 WCU per started KB of the larger of "
        "before and after + 1 WCU for its due entry (deleted)",
        item_write,
    ),
    "webhooks.due": Row(
        "Query of one due shard, na <= now, Limit 200: 0.5 RCU per started 4 KB of the entries it returns "
        "(KEYS_ONLY + at, ≈ 150 B each)",
        due_read,
    ),
}
ROWS.update(WEBHOOK_DELIVERY_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)


def run_webhook_delivery(run: Workload) -> None:
    """An endpoint's delivery through its life: put, due, claimed, due again after a failure, delivered."""
    endpoint_id = webhooks.endpoint_id_for("bench webhook delivery")
    now = datetime.now(UTC)
    event_key = new_sort_key(now)

    def write(row: str, fn: Any, **kwargs: Any) -> Any:
        """One call of ``row``; its floor from the item before and after it (read unmetered, the after inside the
        call: the row's floor is worked out once the call returned)."""
        change: dict[str, Any] = {"before": stored(endpoint_id, event_key)}

        def call() -> Any:
            result = fn(**kwargs)
            change["after"] = stored(endpoint_id, event_key)
            return result

        return run(row, call, basis=change)

    put = write(
        "webhooks.delivery_put",
        webhooks.delivery_put,
        tenant=TENANT,
        endpoint_id=endpoint_id,
        event_key=event_key,
        type="issue.created",
        payload=PAYLOAD,
        now=now,
        keep_days=30,
    )
    bench.check(put is True, "the delivery was not put")
    pending = stored(endpoint_id, event_key)
    assert pending is not None
    shard = pending["dk"]["S"]
    entry = {name: value for name, value in pending.items() if name in (*TABLE_KEYS, *DUE_KEYS, *DUE_PROJECTED)}
    found = run("webhooks.due", webhooks.due_page, shard, now + timedelta(seconds=1), basis=bench.item_size(entry))
    bench.check(any(due.event_key == event_key for due in found), f"the due shard {shard} lists {found}")
    claim = {"tenant": TENANT, "endpoint_id": endpoint_id, "event_key": event_key}
    claimed = write("webhooks.delivery_claim", webhooks.delivery_claim, **claim, seen=0, lease_until=now)
    bench.check(claimed is not None and claimed.attempts == 1, f"the claim gave {claimed}")
    failed = webhooks.Attempt(at=now, code=500, ms=120)
    state = write(
        "webhooks.delivery_finish (due again)",
        webhooks.delivery_finish,
        delivery=claimed,
        attempt=failed,
        answer="Internal Server Error",
        next_attempt=now + timedelta(seconds=5),
    )
    bench.check(state == webhooks.PENDING, f"the failed attempt left it {state}")
    again = write("webhooks.delivery_claim", webhooks.delivery_claim, **claim, seen=1, lease_until=now)
    bench.check(again is not None and again.attempts == 2, f"the second claim gave {again}")
    state = write(
        "webhooks.delivery_finish (delivered)",
        webhooks.delivery_finish,
        delivery=again,
        attempt=webhooks.Attempt(at=now, code=204, ms=80),
        answer="",
        next_attempt=None,
    )
    bench.check(state == webhooks.DELIVERED, f"the delivered attempt left it {state}")
