"""Table lifecycle: create every registered table (with its indexes), wait, describe, delete, billing.

Creation is idempotent: an existing table keeps its data, and gets the global indexes its model
declares that it lacks (UpdateTable, one index a call — a new version adding an index, e.g. the
issue lists' indexes, upgrades a running install; the items then need their index attributes,
see ``manage.py reindex_issues``). Billing mode is a choice:
PAY_PER_REQUEST (on-demand, the default) or PROVISIONED with given read/write units applied
to the table and each of its global indexes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from botocore.exceptions import ClientError
from pynamodb.exceptions import TableError
from pynamodb.models import Model

from ddbmodels.core import connection
from ddbmodels.core.connection import registered
from ddbmodels.core.errors import response_code

PAY_PER_REQUEST = "PAY_PER_REQUEST"
PROVISIONED = "PROVISIONED"
TABLE_WAIT_S = 300.0
DEFAULT_THROUGHPUT = (5, 5)  # (RCU, WCU) of a provisioned table created on the fly


@dataclass(frozen=True)
class TableReport:
    base: str
    name: str
    created: bool
    status: str
    indexes_added: tuple[str, ...] = ()
    # Indexes the model has retired (``retired_indexes``) that the table still has, or that this call dropped.
    indexes_retired: tuple[str, ...] = ()
    indexes_dropped: tuple[str, ...] = ()


def _with_throughput(model: type[Model], rcu: int, wcu: int) -> None:
    """Models declare no throughput: the table and every index get the one chosen at creation."""
    model.Meta.read_capacity_units = rcu
    model.Meta.write_capacity_units = wcu
    for index in model._indexes.values():
        index.Meta.read_capacity_units = rcu  # type: ignore[attr-defined]
        index.Meta.write_capacity_units = wcu  # type: ignore[attr-defined]


def create_all(
    *, billing_mode: str = PAY_PER_REQUEST, rcu: int = 5, wcu: int = 5, wait: bool = True, drop_retired: bool = False
) -> list[TableReport]:
    """CreateTable for each registered table that does not exist yet (free), then wait for ACTIVE.

    An existing table gets the indexes its model declares and lacks; the indexes its model has
    retired are reported (``indexes_retired``), and dropped only with ``drop_retired`` — a process
    of the previous version may still be reading them until the new version serves everywhere.
    """
    check_billing_mode(billing_mode)
    reports = []
    for base, model in sorted(registered().items()):
        created = False
        if not model.exists():
            _with_throughput(model, rcu, wcu)
            try:
                model.create_table(
                    wait=False,
                    billing_mode=billing_mode,
                    read_capacity_units=rcu,
                    write_capacity_units=wcu,
                )
                created = True
            except TableError as error:
                # A CreateTable whose answer came too late is retried by botocore and refused as
                # "preexisting": the first attempt created it. Any other refusal is real.
                if response_code(error) != "ResourceInUseException":
                    raise
                created = True  # by our own earlier attempt (or a concurrent one): it is new either way
        added = () if created else tuple(add_missing_indexes(model, rcu=rcu, wcu=wcu))
        retired = () if created else retired_indexes_present(model)
        dropped = tuple(drop_index(model, name) for name in retired) if drop_retired else ()
        reports.append(
            TableReport(
                base,
                model.Meta.table_name,
                created,
                "CREATING" if created else "",
                added,
                () if drop_retired else retired,
                dropped,
            )
        )
    if wait:
        reports = [replace(r, status=wait_model_active(registered()[r.base])) for r in reports]
        for report in reports:
            if report.created and registered()[report.base]._ttl_attribute():
                # UpdateTimeToLive (free): expired items (idempotency records) are deleted for free
                registered()[report.base].update_ttl(ignore_update_ttl_errors=True)
    return reports


def add_missing_indexes(model: type[Model], *, rcu: int = 5, wcu: int = 5) -> list[str]:
    """UpdateTable (free) creating each global index the model declares and the table lacks; their names.

    DynamoDB creates one index per UpdateTable and backfills it from the items that carry its
    key attributes; each is waited for (ACTIVE) before the next. A provisioned table's new index
    gets ``rcu``/``wcu``.
    """
    name = model.Meta.table_name
    description = wait_active(name)
    have = {index["IndexName"] for index in description.get("GlobalSecondaryIndexes", [])}
    schema = model._get_schema()
    added: list[str] = []
    for index in schema["global_secondary_indexes"]:
        index_name = index["index_name"]
        if index_name in have:
            continue
        create: dict[str, Any] = {
            "IndexName": index_name,
            "KeySchema": sorted(index["key_schema"], key=lambda key: key["KeyType"] != "HASH"),  # HASH first
            "Projection": index["projection"],
        }
        if billing_mode_of(description) == PROVISIONED:
            create["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
        keys = {key["AttributeName"] for key in index["key_schema"]}
        definitions = [d for d in schema["attribute_definitions"] if d["AttributeName"] in keys]
        connection.client().update_table(
            TableName=name, AttributeDefinitions=definitions, GlobalSecondaryIndexUpdates=[{"Create": create}]
        )
        wait_active(name)
        added.append(index_name)
    return added


def retired_indexes_present(model: type[Model]) -> tuple[str, ...]:
    """DescribeTable (free): the indexes the model lists as ``retired_indexes`` that its table still has."""
    retired = tuple(getattr(model, "retired_indexes", ()))
    if not retired:
        return ()
    description = describe_table(model.Meta.table_name) or {}
    have = {index["IndexName"] for index in description.get("GlobalSecondaryIndexes", [])}
    return tuple(name for name in retired if name in have)


def drop_index(model: type[Model], index_name: str) -> str:
    """UpdateTable (free) deleting one global index of the model's table, waited for; its name.

    Only for indexes the model has retired: no write ever pays for them again, and nothing reads them.
    """
    name = model.Meta.table_name
    wait_active(name)
    connection.client().update_table(
        TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index_name}}]
    )
    deadline = time.monotonic() + TABLE_WAIT_S
    while time.monotonic() < deadline:  # a deleting index stays listed (DELETING) until it is gone
        table = describe_table(name) or {}
        if index_name not in {i["IndexName"] for i in table.get("GlobalSecondaryIndexes", [])}:
            return index_name
        time.sleep(0.2)
    raise TimeoutError(f"index {index_name} of {name} still being deleted after {TABLE_WAIT_S:.0f} s")


def wait_model_active(model: type[Model], timeout_s: float = TABLE_WAIT_S) -> str:
    """DescribeTable until a registered model's table and all its indexes are ACTIVE (free)."""
    wait_active(model.Meta.table_name, timeout_s)
    return "ACTIVE"


def describe(model: type[Model]) -> dict[str, Any]:
    """DescribeTable (free) of a registered model's table: status, key schema, indexes, size, billing."""
    return model._get_connection().connection.describe_table(model.Meta.table_name)


def delete_all() -> list[str]:
    """DeleteTable for every registered table that exists (free, whatever the table holds)."""
    deleted = []
    for model in registered().values():
        if model.exists():
            model.delete_table()
            deleted.append(model.Meta.table_name)
    return deleted


# ---------------------------------------------------------------------------- any table, by name


def check_billing_mode(billing_mode: str) -> str:
    if billing_mode not in (PAY_PER_REQUEST, PROVISIONED):
        raise ValueError(f"billing mode must be {PAY_PER_REQUEST} or {PROVISIONED}, got {billing_mode!r}")
    return billing_mode


def error_code(error: ClientError) -> str:
    """The DynamoDB error code of a botocore ClientError (``ResourceNotFoundException``, …)."""
    return str(error.response.get("Error", {}).get("Code", ""))


def describe_table(name: str) -> dict[str, Any] | None:
    """DescribeTable (free); None when the table does not exist."""
    try:
        return cast(dict[str, Any], connection.client().describe_table(TableName=name)["Table"])
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return None
        raise


def wait_active(name: str, timeout_s: float = TABLE_WAIT_S) -> dict[str, Any]:
    """DescribeTable (free) until the table and its indexes are ACTIVE; returns the description."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        table = describe_table(name)
        if table is not None:
            indexes = table.get("GlobalSecondaryIndexes", [])
            if all(status == "ACTIVE" for status in [table["TableStatus"], *(i["IndexStatus"] for i in indexes)]):
                return table
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {name} not ACTIVE after {timeout_s:.0f}s")
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def create_table(definition: dict[str, Any], *, wait: bool = True) -> bool:
    """CreateTable (free), idempotent: True when this call created it; then waits for ACTIVE."""
    created = True
    try:
        connection.client().create_table(**definition)
    except ClientError as error:
        if error_code(error) != "ResourceInUseException":  # exists already, or being created by someone else
            raise
        created = False
    if wait:
        wait_active(definition["TableName"])
    return created


def drop_table(name: str) -> str:
    """DeleteTable (free, whatever the table holds); "" when dropped (or already gone), else why not."""
    try:
        connection.client().delete_table(TableName=name)
    except ClientError as error:
        code = error_code(error)
        if code == "ResourceNotFoundException":
            return ""
        if code in ("ResourceInUseException", "LimitExceededException"):
            return f"DeleteTable refused ({code}: {error.response['Error'].get('Message', '')})"
        raise
    return ""


def drop_table_if_allowed(name: str) -> bool:
    """DeleteTable (free, whatever the table holds); False when this role may not (AccessDeniedException).

    Any other refusal is raised, as botocore raised it.
    """
    try:
        connection.client().delete_table(TableName=name)
    except ClientError as error:
        if error_code(error) != "AccessDeniedException":
            raise
        return False
    return True


def list_table_names() -> list[str]:
    """ListTables (free, 100 names a page): every table name of the account and region."""
    client = connection.client()
    names: list[str] = []
    request: dict[str, Any] = {}
    while True:
        page = client.list_tables(**request)
        names.extend(page.get("TableNames", []))
        if "LastEvaluatedTableName" not in page:
            return names
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def provisioned_throughput(description: Mapping[str, Any]) -> tuple[int, int]:
    """(RCU, WCU) provisioned on a table or index description; (0, 0) when on demand."""
    pt = description.get("ProvisionedThroughput", {})
    return int(pt.get("ReadCapacityUnits", 0)), int(pt.get("WriteCapacityUnits", 0))


def billing_mode_of(description: Mapping[str, Any]) -> str:
    """PAY_PER_REQUEST or PROVISIONED (DynamoDB leaves BillingModeSummary out for old provisioned tables)."""
    return str(description.get("BillingModeSummary", {}).get("BillingMode", PROVISIONED))
