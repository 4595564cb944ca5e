"""The workload and rows of the webhooks table's endpoints and delivery log (``bench/patterns.py``); the sender's
rows (a delivery put, claimed, finished; the due sweep) are ``pattern_rows.webhook_delivery``'s.

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ddbmodels import webhooks
from ddbmodels.core import capacity, connection
from ddbmodels.core.keys import time_key, utcnow
from ddbmodels.webhooks.team import webhook_pages
from devtools import bench
from devtools.bench import Cost, read_units, update_units
from pattern_rows.rows import ROWS, Row, counted, fixed
from pattern_rows.workload import SPLIT, TENANT, Workload

PAYLOAD = '{"type":"issue.created","timestamp":"2026-11-26T10:00:00.000Z","data":{"team":"%s","issue":{"key":"WEB-%d",'
PAYLOAD += '"title":"A title of some forty characters, typical","status":"open","priority":"medium"}}}'


def _items(partition: str) -> list[dict[str, Any]]:
    client, table = connection.client(), connection.table_name("webhooks")
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": partition}},
        "ConsistentRead": True,
    }
    return list(bench.unmetered(lambda: client.query(**request))["Items"])


def partition_bytes(partition: str) -> int:
    """The stored size of a partition's items (read unmetered)."""
    return sum(bench.item_size(item) for item in _items(partition))


def one_query(_found: Any, size: int) -> Cost:
    return Cost(read_units(size), 0, 1)


def _delivery_bytes(tenant: str, endpoint_id: str, event_key: str) -> int:
    key = webhooks.delivery_sort(event_key)
    return next(bench.item_size(i) for i in _items(webhooks.endpoint_key(tenant, endpoint_id)) if i["s"]["S"] == key)


def redelivered(found: webhooks.DeliveryItem, before: int) -> Cost:
    """The UpdateItem (the larger of the item before and after, per started KB) and the due entry it puts."""
    return Cost(0, update_units(before, _delivery_bytes(found.tenant, found.endpoint_id, found.event_key)) + 1, 1)


def partitions_read(_found: Any, sizes: list[int]) -> Cost:
    """One consistent Query a partition (each endpoint's, then the team's): 1 RCU per started 4 KB."""
    return Cost(sum(read_units(size, consistent=True) for size in sizes), 0, len(sizes))


def empty_partitions(_found: Any, sizes: list[int]) -> Cost:
    return Cost(-sum(1 for size in sizes if size == 0))


def offboarding_read() -> list[Any]:
    with capacity.access_pattern("tenants.webhooks"):
        return list(webhook_pages(TENANT, connection.table_name("webhooks")))


WEBHOOK_ROWS: dict[str, Row] = {
    "webhooks.endpoint_put": Row("PutItem attribute_not_exists ≤ 1 KB (≈ 300 B an endpoint): 1 WCU", fixed(0, 1, 1)),
    "webhooks.endpoints": Row(
        "Query of the team partition, s BETWEEN e# AND e#~: 0.5 RCU per started 4 KB of its endpoints and tombstones",
        one_query,
    ),
    "webhooks.endpoint_update": Row("UpdateItem on the version ≤ 1 KB, ALL_NEW: 1 WCU", fixed(0, 1, 1)),
    "webhooks.endpoint_tombstone": Row("UpdateItem to the tombstone on the version ≤ 1 KB: 1 WCU", fixed(0, 1, 1)),
    "webhooks.endpoint_get": Row("GetItem ≤ 4 KB, consistent: 1 RCU", fixed(1, 0, 1)),
    "webhooks.delivery_page": Row(
        "Query of the endpoint's partition, descending, Limit 25: 0.5 RCU per started 4 KB of its deliveries",
        one_query,
    ),
    "webhooks.redeliver": Row(
        "UpdateItem SET st, na, dk, rk where st <> pending and rk <> the request's fence: 1 WCU per started KB of "
        "the larger of the item before and after, + 1 for its due entry (KEYS_ONLY + at)",
        redelivered,
    ),
    "tenants.webhooks (offboarding read)": Row(
        "consistent Query of the team partition + one of each endpoint's (tombstones too): 1 RCU per started 4 KB "
        "each (at least 1 a partition, an empty one too)",
        partitions_read,
        (bench.LOCAL_EMPTY_QUERY, empty_partitions),
    ),
}
ROWS.update(WEBHOOK_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)


def _put_delivery(endpoint_id: str, n: int, *, done: bool) -> str:
    """A delivery as the sender leaves it (written unmetered: its own rows are the sender's)."""
    event_key = f"{time_key(utcnow() - timedelta(minutes=10 - n))}#{n:08x}"
    pk, sort = webhooks.endpoint_key(TENANT, endpoint_id), webhooks.delivery_sort(event_key)
    item: dict[str, Any] = {
        "pk": {"S": pk},
        "s": {"S": sort},
        "m": {"S": webhooks.message_id(endpoint_id, event_key)},
        "ty": {"S": "issue.created"},
        "p": {"S": PAYLOAD % (TENANT, n)},
        "st": {"S": webhooks.DELIVERED if done else webhooks.PENDING},
        "at": {"N": "1" if done else "0"},
        "na": {"S": time_key(utcnow())},
        "ca": {"S": event_key[:24]},
    }
    if done:
        item.update({"lc": {"N": "204"}, "ld": {"N": "41"}, "da": {"S": time_key(utcnow())}})
        item["al"] = {"L": [{"M": {"t": {"S": time_key(utcnow())}, "c": {"N": "204"}, "ms": {"N": "41"}}}]}
    else:
        item["dk"] = {"S": webhooks.due_key(pk, sort)}
    client = connection.client()
    bench.unmetered(lambda: client.put_item(TableName=connection.table_name("webhooks"), Item=item))
    return event_key


def _settle(endpoint_id: str, event_key: str) -> None:
    """The delivery as its sender would leave it once sent again (unmetered): delivered, out of the due index."""
    client = connection.client()
    key = {"pk": {"S": webhooks.endpoint_key(TENANT, endpoint_id)}, "s": {"S": webhooks.delivery_sort(event_key)}}
    bench.unmetered(
        lambda: client.update_item(
            TableName=connection.table_name("webhooks"),
            Key=key,
            UpdateExpression="SET st = :d REMOVE dk",
            ExpressionAttributeValues={":d": {"S": webhooks.DELIVERED}},
        )
    )


def run_webhooks(run: Workload) -> None:
    """An owner registers two webhooks (the list read), edits one, deletes the other; the kept one's delivery log
    is read and a delivered one sent again; the team's webhooks read as offboarding reads them."""
    kept, gone = (
        run(
            "webhooks.endpoint_put",
            webhooks.endpoint_put,
            TENANT,
            webhooks.endpoint_id_for(f"bench-{name}"),
            url=f"https://{name}.example.com/tracker",
            events=["issue.created", "issue.updated", "comment.created"],
            secret="whsec_" + "A" * 44,
            description=f"the {name} receiver",
            created_by="alice",
        )[0]
        for name in ("ci", "chat")
    )
    listed = run("webhooks.endpoints", webhooks.endpoints_of, TENANT, basis=partition_bytes(webhooks.team_key(TENANT)))
    bench.check([e.id for e in listed] == [kept.id, gone.id], f"the team's webhooks are {listed}")
    run(
        "webhooks.endpoint_update",
        webhooks.endpoint_update,
        TENANT,
        kept.id,
        expected_version=1,
        events=["issue.created", "issue.status_changed"],
    )
    run(
        "webhooks.endpoint_tombstone",
        webhooks.endpoint_tombstone,
        TENANT,
        gone.id,
        expected_version=1,
        expires=utcnow() + timedelta(days=32),
    )
    again = run("webhooks.endpoint_get", webhooks.endpoint_get, TENANT, kept.id, consistent=True)
    bench.check(again is not None and again.version == 2, f"the kept webhook is {again}")
    keys = [_put_delivery(kept.id, n, done=True) for n in range(1, 4)]
    page, _ = run(
        "webhooks.delivery_page",
        webhooks.delivery_page,
        TENANT,
        kept.id,
        basis=partition_bytes(webhooks.endpoint_key(TENANT, kept.id)),
    )
    bench.check([d.event_key for d in page] == keys[::-1], f"the log is {[d.event_key for d in page]}")
    sent = run(
        "webhooks.redeliver",
        webhooks.delivery_redeliver,
        TENANT,
        kept.id,
        keys[0],
        now=utcnow(),
        fence="api.1.bench",
        basis=_delivery_bytes(TENANT, kept.id, keys[0]),
    )
    bench.check(sent.status == webhooks.PENDING, f"the delivery sent again is {sent.status}")
    _settle(kept.id, keys[0])  # out of the due index again: the sender's rows count what is due
    sizes = [partition_bytes(webhooks.endpoint_key(TENANT, e)) for e in (kept.id, gone.id)]
    pages = run(
        "tenants.webhooks (offboarding read)",
        offboarding_read,
        basis=[*sizes, partition_bytes(webhooks.team_key(TENANT))],
    )
    found = sum(len(p) for p in pages)
    bench.check(found == 5, f"offboarding found {found} items: 2 webhooks (one a tombstone), 3 deliveries")
