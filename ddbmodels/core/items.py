"""Any item of any table, as DynamoDB JSON: a Query/Scan page, every page of a Query, GetItem, conditional Put/Delete.

The admin's item browser works on every table of the app, whatever its model, so it speaks
botocore's low-level item format (``{"attr": {"S": "x"}}``, bytes for binary). Writes are
conditioned on the stored item being the one that was loaded — by its version attribute when
the table's registered model has one (``version_attribute``), else by every attribute — and a
refused condition is ChangedSinceRead, like any other stale write. DynamoDB's own refusals of a
request (a bad expression, an item too large) are InvalidInput; throttling past the client's
retries is Unavailable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError
from pynamodb.attributes import VersionAttribute
from pynamodb.models import Model

from ddbmodels.core import capacity, connection, retry
from ddbmodels.core.errors import THROTTLING_CODES, ChangedSinceRead, DomainError, InvalidInput, Unavailable
from ddbmodels.core.tables import error_code

PAGE_SIZE = 10  # a page staff can read without scrolling far: each item shows every attribute


@dataclass
class Page:
    items: list[dict[str, Any]]
    last_key: dict[str, Any] | None
    scanned: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def registered_model(table: str) -> type[Model] | None:
    """The model registered for the physical table ``table`` (None for a table no model owns)."""
    for base, model in connection.registered().items():
        if connection.table_name(base) == table:
            return model
    return None


def version_attribute(table: str) -> str | None:
    """The stored name of the VersionAttribute of the model registered for ``table`` (None if none)."""
    model = registered_model(table)
    if model is None:
        return None
    found = [a.attr_name for a in model.get_attributes().values() if isinstance(a, VersionAttribute)]
    return found[0] if found else None


def field_names(table: str) -> dict[str, str]:
    """No DynamoDB call — stored attribute name → the model's Python name, for the model registered for ``table``.

    Item kinds (subclasses of a model with a discriminator) are included; a short name that two kinds
    use for different fields maps to both ("body / description"). {} for a table no model owns.
    """
    model = registered_model(table)
    if model is None:
        return {}
    names: dict[str, set[str]] = {}
    kinds, seen = [model], set()
    while kinds:
        kind = kinds.pop()
        if kind in seen:
            continue
        seen.add(kind)
        kinds.extend(kind.__subclasses__())
        for python_name, attribute in kind.get_attributes().items():
            names.setdefault(attribute.attr_name, set()).add(python_name)
    return {stored: " / ".join(sorted(python)) for stored, python in sorted(names.items())}


def item_key(item: Model) -> tuple[str, dict[str, Any]]:
    """(table name, key as DynamoDB JSON) of a model's item: what the item browser addresses it by."""
    raw = item.to_dynamodb_dict()
    names = [a.attr_name for a in type(item).get_attributes().values() if a.is_hash_key or a.is_range_key]
    return type(item).Meta.table_name, {name: raw[name] for name in names}


@capacity.access_pattern("admin.browse")
def read_page(request: dict[str, Any], *, scan: bool) -> Page:
    """One Query or Scan page of at most PAGE_SIZE items — RCU per 4 KB read (0.5 eventually consistent)."""
    call = connection.client().scan if scan else connection.client().query
    try:
        answer = call(Limit=PAGE_SIZE, ReturnConsumedCapacity="TOTAL", **request)
    except ClientError as error:
        raise _refused(error, "request") from error
    return Page(answer.get("Items", []), answer.get("LastEvaluatedKey"), int(answer.get("ScannedCount", 0)))


def query_pages(table: str, *, limit: int | None = None, **request: Any) -> Iterator[list[dict[str, Any]]]:
    """Query page after page (ReturnConsumedCapacity TOTAL) to the last, or until ``limit`` items are returned.

    With a limit each request asks only for the items still wanted (Limit), so nothing is read
    past it. A table that does not exist (a period nobody wrote to, a table this build lacks)
    has no items. The caller's access pattern meters the pages.
    """
    client = connection.client()
    request = {"TableName": table, "ReturnConsumedCapacity": "TOTAL", **request}
    returned = 0
    while limit is None or returned < limit:
        if limit is not None:
            request["Limit"] = limit - returned
        try:
            page = client.query(**request)
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return
            raise
        items: list[dict[str, Any]] = page.get("Items", [])
        returned += len(items)
        yield items
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@capacity.access_pattern("admin.item")
def item_get(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    """GetItem, consistent — 1 RCU per 4 KB. None when missing."""
    answer = connection.client().get_item(TableName=table, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    item: dict[str, Any] | None = answer.get("Item")
    return item


def unchanged_condition(loaded: dict[str, Any], version: str | None) -> dict[str, Any]:
    """ConditionExpression: the stored item is still ``loaded`` (its version, or every attribute equal)."""
    names = [version] if version and version in loaded else sorted(loaded)
    parts, attr_names, values = [], {}, {}
    for i, name in enumerate(names):
        attr_names[f"#a{i}"] = name
        values[f":v{i}"] = loaded[name]
        parts.append(f"#a{i} = :v{i}")
    return {
        "ConditionExpression": " AND ".join(parts),
        "ExpressionAttributeNames": attr_names,
        "ExpressionAttributeValues": values,
    }


@capacity.access_pattern("admin.item")
def item_put_unchanged(table: str, new: dict[str, Any], loaded: dict[str, Any], *, version: str | None) -> None:
    """PutItem conditioned on the stored item being ``loaded`` — 1 WCU per KB. ChangedSinceRead if it changed.

    With a version attribute the new item gets loaded version + 1, so the app's own
    optimistic locking sees the admin's save like any other.
    """
    if version and version in loaded:
        new = {**new, version: {"N": str(int(Decimal(loaded[version]["N"])) + 1)}}
    _conditional(connection.client().put_item, TableName=table, Item=new, **unchanged_condition(loaded, version))


@capacity.access_pattern("admin.item")
def item_delete_unchanged(table: str, key: dict[str, Any], loaded: dict[str, Any], *, version: str | None) -> None:
    """DeleteItem conditioned on the stored item being ``loaded`` — 1 WCU per KB. ChangedSinceRead if it changed."""
    _conditional(connection.client().delete_item, TableName=table, Key=key, **unchanged_condition(loaded, version))


def _conditional(call: Any, **request: Any) -> None:
    try:
        call(ReturnConsumedCapacity="TOTAL", **request)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
            raise ChangedSinceRead("changed since it was loaded", table=request["TableName"]) from error
        raise _refused(error, "item") from error


def _refused(error: ClientError, what: str) -> DomainError:
    """Unavailable when DynamoDB throttled past botocore's retries; InvalidInput for any other refusal."""
    details = error.response.get("Error", {})
    if details.get("Code") in THROTTLING_CODES:
        return Unavailable(f"DynamoDB is throttling this table: {details.get('Message') or error}")
    return InvalidInput(f"DynamoDB refused the {what}: {details.get('Message') or error}")


BATCH_GET = 100  # BatchGetItem's maximum keys per request
GET_BACKOFF = retry.Backoff(attempts=10, base_s=0.05, cap_s=5.0)


def key_equals(name: str, value: str, *, index: str | None = None, consistent: bool = False) -> dict[str, Any]:
    """A Query request for one partition, ``<name> = value``, of the table or of ``index``.

    ``consistent`` on base tables only (an index offers eventually consistent reads alone).
    """
    request: dict[str, Any] = {
        "KeyConditionExpression": "#k = :k",
        "ExpressionAttributeNames": {"#k": name},
        "ExpressionAttributeValues": {":k": {"S": value}},
    }
    if index is not None:
        request["IndexName"] = index
    if consistent:
        request["ConsistentRead"] = True
    return request


def batch_get_pages(
    table: str, keys: Iterable[dict[str, Any]], *, consistent: bool = True
) -> Iterator[list[dict[str, Any]]]:
    """BatchGetItem 100 keys a request, pages in wire format; UnprocessedKeys again after the one full-jitter backoff.

    1 RCU per item read consistent (0.5 otherwise), and the same for a key that holds no item.
    """
    client = connection.client()
    keys = list(keys)
    for start in range(0, len(keys), BATCH_GET):
        pending: dict[str, Any] = {table: {"Keys": keys[start : start + BATCH_GET], "ConsistentRead": consistent}}
        for _ in retry.attempts(GET_BACKOFF):
            answer = client.batch_get_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL")
            yield answer.get("Responses", {}).get(table, [])
            pending = answer.get("UnprocessedKeys") or {}
            if not pending:
                break
        else:
            raise Unavailable(f"BatchGetItem left keys unprocessed after {GET_BACKOFF.attempts} attempts", table=table)
