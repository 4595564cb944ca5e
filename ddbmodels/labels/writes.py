"""Writing label entries: guarded by the issue version, outside the issue's own update; the label registry.

Every entry write is conditioned on the version it carries (``v``): a put only over a missing
entry or one of an older or the same version, a delete only of a missing or older one. A refused
write means a newer version of the issue already wrote there: nothing to do (its own writer owns
the entry). 1 WCU per entry ≤ 1 KB either way (a refused conditional write is charged too).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.labels.model import LabelEntry

Raw = dict[str, Any]
REMEMBER_S = 300.0  # how long a process trusts "this label is registered" without reading the registry again
_registered: dict[tuple[str, str, str], float] = {}  # (table, team, label) → when it was seen registered
_registered_lock = threading.Lock()


def _table() -> str:
    return str(LabelEntry.Meta.table_name)


def _refused(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _unless_refused(write: Callable[[], Any]) -> bool:
    """Run one conditional write: True when written, False when its condition refused it."""
    try:
        write()
    except ClientError as error:
        if _refused(error):
            return False
        raise
    return True


def entry_put(entry: Raw) -> bool:
    """PutItem if the stored entry is missing or of a version ≤ the entry's — 1 WCU per KB. False: newer one there."""
    return _unless_refused(
        lambda: connection.client().put_item(
            TableName=_table(),
            Item=entry,
            ConditionExpression="attribute_not_exists(v) OR v <= :v",
            ExpressionAttributeValues={":v": entry["v"]},
            ReturnConsumedCapacity="TOTAL",
        )
    )


def entry_delete(key: Raw, version: int) -> bool:
    """DeleteItem if the stored entry is missing or older than ``version`` — 1 WCU per KB. False: newer one there."""
    return _unless_refused(
        lambda: connection.client().delete_item(
            TableName=_table(),
            Key={"lk": key["lk"], "s": key["s"]},
            ConditionExpression="attribute_not_exists(v) OR v < :v",
            ExpressionAttributeValues={":v": {"N": str(version)}},
            ReturnConsumedCapacity="TOTAL",
        )
    )


@capacity.access_pattern("labels.move")
def entries_move(
    before: Mapping[tuple[str, str], Raw], after: Mapping[tuple[str, str], Raw], *, version: int
) -> tuple[int, int]:
    """Put every entry of ``after`` that differs from ``before``, delete every key of ``before`` not in ``after``.

    ``version``: the issue's version after the write (the deletes' guard). 1 WCU per entry written:
    a status change of an issue with 2 labels moves 2 entries, 4 WCU. Returns (written, refused).
    """
    written = refused = 0
    for key, entry in after.items():
        if before.get(key) == entry:
            continue
        done = entry_put(entry)
        written, refused = written + done, refused + (not done)
    for key in before:
        if key not in after:
            done = entry_delete({"lk": {"S": key[0]}, "s": {"S": key[1]}}, version)
            written, refused = written + done, refused + (not done)
    return written, refused


def registry_item(tenant: str, label: str) -> Raw:
    """The registry item of a label (PK the team, SK the label)."""
    return {"lk": {"S": tenant}, "s": {"S": label}}


@capacity.access_pattern("labels.register")
def registry_ensure(tenant: str, labels: Iterable[str]) -> int:
    """Make sure the team's registry names each label, before any entry of it is written; returns items written.

    Per label this process has not seen registered in the last REMEMBER_S: GetItem, eventually
    consistent (0.5 RCU; a registry item is never removed but with its team, so a stale "yes" cannot
    be wrong), and only when missing a PutItem ``attribute_not_exists`` (1 WCU). A label seen costs
    nothing. The bound matters only for a team offboarded and re-created under its slug: offboarding
    forgets in its own process, the others read the registry again within REMEMBER_S.
    """
    table = _table()
    now = time.monotonic()
    seen = {label for label in labels if now - _registered.get((table, tenant, label), -1e18) < REMEMBER_S}
    wanted = sorted(set(labels) - seen)
    written = 0
    client = connection.client()
    for label in wanted:
        key = registry_item(tenant, label)
        if "Item" not in client.get_item(TableName=table, Key=key, ReturnConsumedCapacity="TOTAL"):
            try:
                client.put_item(
                    TableName=table,
                    Item=key,
                    ConditionExpression="attribute_not_exists(lk)",
                    ReturnConsumedCapacity="TOTAL",
                )
                written += 1
            except ClientError as error:
                if not _refused(error):
                    raise
        with _registered_lock:
            _registered[(table, tenant, label)] = now
    return written


def registry_forget() -> None:
    """Forget which labels this process saw registered (after a team's data was deleted; tests)."""
    with _registered_lock:
        _registered.clear()
