"""Writing preferences: save a view once, change it on its version, a person's notification setting."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidInput
from ddbmodels.core.keys import parse_time_key, time_key, utcnow
from ddbmodels.preferences.model import (
    LEVELS,
    NAME_MAX,
    NOTIFY_SORT,
    QUERY_MAX,
    VIEW_ID_RE,
    SavedView,
    TeamNotify,
    ViewEdit,
    generation_start,
    person_key,
    person_sort,
    team_key,
    view_sort,
)
from ddbmodels.preferences.reads import team_notify_of, view_of

Raw = dict[str, Any]
REMEMBER_S = 300.0  # how long a process trusts "this person is in the team's registry" without reading it
_registered: dict[tuple[str, str, str], float] = {}
_registered_lock = threading.Lock()


def _table() -> str:
    return connection.table_name("preferences")


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _cancelled(error: ClientError) -> bool:
    return _code(error) in ("ConditionalCheckFailedException", "TransactionCanceledException")


def _check(name: str, query: str) -> tuple[str, str]:
    name, query = name.strip(), " ".join(query.split())
    if not name or len(name) > NAME_MAX:
        raise InvalidInput(f"A view's name is 1 to {NAME_MAX} characters.")
    if len(query) > QUERY_MAX:
        raise InvalidInput(f"A view's query is at most {QUERY_MAX} characters.")
    return name, query


@capacity.access_pattern("preferences.person_register")
def person_ensure(tenant: str, username: str) -> bool:
    """The team's registry names the person before their first view; True when written now.

    GetItem (0.5 RCU; a registry item is removed only with its team) and, when missing, PutItem
    ``attribute_not_exists`` (1 WCU); then trusted REMEMBER_S per process, costing nothing.
    """
    table = _table()
    now = time.monotonic()
    if now - _registered.get((table, tenant, username), -1e18) < REMEMBER_S:
        return False
    key = {"pk": {"S": team_key(tenant)}, "s": {"S": person_sort(username)}}
    client = connection.client()
    written = False
    if "Item" not in client.get_item(TableName=table, Key=key, ReturnConsumedCapacity="TOTAL"):
        try:
            client.put_item(
                TableName=table,
                Item=key,
                ConditionExpression="attribute_not_exists(pk)",
                ReturnConsumedCapacity="TOTAL",
            )
            written = True
        except ClientError as error:
            if not _cancelled(error):
                raise
    with _registered_lock:
        _registered[(table, tenant, username)] = now
    return written


def registry_forget() -> None:
    """Forget which people this process saw registered (after a team's data was deleted; tests)."""
    with _registered_lock:
        _registered.clear()


def _view_item(tenant: str, partition: str, view: SavedView, *, updated: str) -> Raw:
    item: Raw = {
        "pk": {"S": partition},
        "s": {"S": view_sort(view.id)},
        "nm": {"S": view.name},
        "q": {"S": view.query},
        "by": {"S": view.author},
        "sh": {"BOOL": view.shared},
        "v": {"N": str(view.version)},
        "ca": {"S": time_key(view.created_at) if view.created_at else updated},
        "ua": {"S": updated},
    }
    if view.project:
        item["pj"] = {"S": view.project}
    return item


@capacity.access_pattern("preferences.view_save")
def view_save(
    tenant: str, username: str, *, view_id: str, name: str, query: str, project: str | None = None
) -> tuple[SavedView, bool]:
    """Save a person's view, once per ``view_id`` (the form's idempotency key): (the view, created now?).

    The registry item first (``person_ensure``), then PutItem ``attribute_not_exists(pk)`` — 1 WCU. The
    same id again writes nothing and returns the view as it is now (one consistent GetItem, 1 RCU);
    AlreadyExists when that id is another person's.
    """
    if not VIEW_ID_RE.match(view_id):
        raise InvalidInput("A view's id is the ULID of the form that saved it.")
    name, query = _check(name, query)
    person_ensure(tenant, username)
    now = parse_time_key(time_key(utcnow()))  # as stored (milliseconds)
    view = SavedView(
        id=view_id,
        name=name,
        query=query,
        project=project or None,
        author=username,
        shared=False,
        version=1,
        created_at=now,
    )
    item = _view_item(tenant, person_key(tenant, username), view, updated=time_key(now))
    client = connection.client()
    try:
        client.put_item(
            TableName=_table(),
            Item=item,
            ConditionExpression="attribute_not_exists(pk)",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if not _cancelled(error):
            raise
        answer = client.get_item(
            TableName=_table(),
            Key={"pk": item["pk"], "s": item["s"]},
            ConsistentRead=True,
            ReturnConsumedCapacity="TOTAL",
        )
        if "Item" not in answer:  # deleted between the two calls: as good as another person's
            raise AlreadyExists("This form saved a view already.") from error
        return view_of(answer["Item"]), False
    return view, True


@capacity.access_pattern("preferences.view_change")
def view_change(tenant: str, username: str, view_id: str, edit: ViewEdit) -> SavedView | None:
    """Rename, share, unshare or delete one's own view, on the version the page showed; the view after (None: deleted).

    Reads the person's item (consistent GetItem, 1 RCU), then writes it conditioned on ``v`` together
    with the team's copy when the view is or becomes shared (TransactWriteItems: 4 WCU), else alone
    (1 WCU). ChangedSinceRead when the version differs or the view is gone: nothing written.
    """
    client = connection.client()
    key = {"pk": {"S": person_key(tenant, username)}, "s": {"S": view_sort(view_id)}}
    answer = client.get_item(TableName=_table(), Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    if "Item" not in answer:
        raise ChangedSinceRead("This view was deleted.", current=None)
    before = view_of(answer["Item"])
    if before.version != edit.expected_version:
        raise ChangedSinceRead(f"{before.name} was changed since the page was loaded.", current=str(before.version))
    now = utcnow()
    after = None
    if not edit.delete:
        after = replace(
            before,
            name=before.name if edit.name is None else _check(edit.name, before.query)[0],
            shared=before.shared if edit.shared is None else edit.shared,
            version=before.version + 1,
        )
    condition = {"ConditionExpression": "v = :v", "ExpressionAttributeValues": {":v": {"N": str(before.version)}}}
    team_copy = {"pk": {"S": team_key(tenant)}, "s": key["s"]}
    own: Raw
    if after is None:
        own = {"Delete": {"TableName": _table(), "Key": key, **condition}}
    else:
        own = {
            "Put": {
                "TableName": _table(),
                "Item": _view_item(tenant, key["pk"]["S"], after, updated=time_key(now)),
                **condition,
            }
        }
    actions = [own]
    if after is not None and after.shared:
        actions.append(
            {"Put": {"TableName": _table(), "Item": _view_item(tenant, team_key(tenant), after, updated=time_key(now))}}
        )
    elif before.shared:
        actions.append({"Delete": {"TableName": _table(), "Key": team_copy}})
    try:
        if len(actions) == 1:
            operation = next(iter(own))
            request = dict(own[operation])
            if operation == "Put":
                client.put_item(ReturnConsumedCapacity="TOTAL", **request)
            else:
                client.delete_item(ReturnConsumedCapacity="TOTAL", **request)
        else:
            client.transact_write_items(TransactItems=actions, ReturnConsumedCapacity="TOTAL")
    except ClientError as error:
        if not _cancelled(error):
            raise
        raise ChangedSinceRead(f"{before.name} was changed since the page was loaded.") from error
    return after


@capacity.access_pattern("preferences.view_unshare_team")
def view_unshare_team(tenant: str, view_id: str, *, expected_version: int) -> SavedView:
    """Take a shared view out of the team's menu whoever its author is (an owner; a person leaving); the copy taken.

    Consistent GetItem of the team's copy and of the author's item (1 RCU each), then TransactWriteItems:
    the copy deleted and the author's item unshared, both on ``v`` (4 WCU); when the author's item is gone
    or on another version, the copy alone on its ``v`` (DeleteItem, 1 WCU). The author keeps the view,
    theirs alone. ChangedSinceRead when the copy is gone or on another version: nothing written.
    """
    client = connection.client()
    copy_key = {"pk": {"S": team_key(tenant)}, "s": {"S": view_sort(view_id)}}
    answer = client.get_item(TableName=_table(), Key=copy_key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    if "Item" not in answer:
        raise ChangedSinceRead("This view is no longer shared.", current=None)
    copy = view_of(answer["Item"])
    if copy.version != expected_version:
        raise ChangedSinceRead(f"{copy.name} was changed since the page was loaded.", current=str(copy.version))
    condition = {"ConditionExpression": "v = :v", "ExpressionAttributeValues": {":v": {"N": str(expected_version)}}}
    own_key = {"pk": {"S": person_key(tenant, copy.author)}, "s": copy_key["s"]}
    own = client.get_item(TableName=_table(), Key=own_key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    try:
        if "Item" in own and view_of(own["Item"]).version == expected_version:
            mine = view_of(own["Item"])
            after = replace(mine, shared=False, version=mine.version + 1)
            item = _view_item(tenant, own_key["pk"]["S"], after, updated=time_key(utcnow()))
            client.transact_write_items(
                TransactItems=[
                    {"Delete": {"TableName": _table(), "Key": copy_key, **condition}},
                    {"Put": {"TableName": _table(), "Item": item, **condition}},
                ],
                ReturnConsumedCapacity="TOTAL",
            )
        else:  # the author's item is gone or was changed apart from its copy: the copy goes alone
            client.delete_item(TableName=_table(), Key=copy_key, ReturnConsumedCapacity="TOTAL", **condition)
    except ClientError as error:
        if not _cancelled(error):
            raise
        raise ChangedSinceRead(f"{copy.name} was changed since the page was loaded.") from error
    return copy


@capacity.access_pattern("preferences.notify_set")
def notify_set(tenant: str, username: str, *, level: str, email: bool, expected_version: int) -> TeamNotify:
    """Set a person's notification setting on the version the page showed; the team's settings after (``ALL_NEW``).

    The team's settings item is put first if missing (PutItem ``attribute_not_exists``, 1 WCU; only
    for a person's first setting; its generation starts at ``generation_start``), then UpdateItem
    ``SET m.#u = :p ADD g :one`` conditioned on the person's ``v`` (absent for version 0), returning
    the whole item — 1 WCU per KB of the item. ChangedSinceRead when it moved on: nothing written.
    """
    if level not in LEVELS:
        raise InvalidInput(f"A notification level is one of {', '.join(LEVELS)}.")
    client = connection.client()
    key = {"pk": {"S": team_key(tenant)}, "s": {"S": NOTIFY_SORT}}
    if expected_version == 0:
        try:
            client.put_item(
                TableName=_table(),
                Item={**key, "m": {"M": {}}, "g": {"N": str(generation_start(utcnow().timestamp()))}},
                ConditionExpression="attribute_not_exists(pk)",
                ReturnConsumedCapacity="TOTAL",
            )
        except ClientError as error:
            if not _cancelled(error):
                raise
        condition = "attribute_not_exists(m.#u)"
        values: Raw = {}
    else:
        condition = "m.#u.v = :v"
        values = {":v": {"N": str(expected_version)}}
    setting = {"l": {"S": level}, "e": {"BOOL": email}, "v": {"N": str(expected_version + 1)}}
    try:
        answer = client.update_item(
            TableName=_table(),
            Key=key,
            UpdateExpression="SET m.#u = :p ADD g :one",
            ConditionExpression=condition,
            ExpressionAttributeNames={"#u": username},
            ExpressionAttributeValues={":p": {"M": setting}, ":one": {"N": "1"}, **values},
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if not _cancelled(error):
            raise
        raise ChangedSinceRead("Your notification settings were changed since the page was loaded.") from error
    return team_notify_of(answer["Attributes"])
