"""Where a run writes: DynamoDB Local (or AWS with ``--allow-aws``), a fresh table prefix, its tables dropped."""

from __future__ import annotations

import contextvars
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ddbmodels.core import connection, tables

T = TypeVar("T")

REFUSAL = (
    "refusing to run: DYNAMODB_ENDPOINT_URL is not set, so this would create tables and write "
    "thousands of items on real AWS (it costs money). Run it against DynamoDB Local:\n"
    "    python -m devtools.services run -- .venv/bin/python {script}\n"
    "or pass --allow-aws if real AWS is what you mean."
)


@dataclass(frozen=True)
class Target:
    """Where a run writes: the application's settings, and the prefix of the run's own tables."""

    settings: connection.DynamoSettings
    prefix: str

    @property
    def endpoint(self) -> str:
        return self.settings.endpoint_url or f"aws:{self.settings.region}"


def refused(settings: connection.DynamoSettings, script: str, allow_aws: bool) -> bool:
    """True, after saying why on stderr, when the run would go to real AWS without ``--allow-aws``."""
    if settings.endpoint_url is None and not allow_aws:
        print(REFUSAL.format(script=script), file=sys.stderr)
        return True
    return False


def connect(script: str, *, allow_aws: bool, tag: str = "") -> Target | None:
    """Settings from the environment, a fresh prefix, every model pointed at it; None when refused (exit 2)."""
    settings = connection.DynamoSettings.from_env()  # the application's own variables
    if refused(settings, script, allow_aws):
        return None
    if settings.endpoint_url is not None and not os.environ.get("AWS_ACCESS_KEY_ID"):
        # DynamoDB Local accepts any signature, but botocore refuses to sign without credentials.
        os.environ["AWS_ACCESS_KEY_ID"] = "local"
        os.environ["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105 (a dummy, for DynamoDB Local only)
        os.environ.pop("AWS_SESSION_TOKEN", None)
    prefix = f"{settings.table_prefix}bench-{secrets.token_hex(4)}-{f'{tag}-' if tag else ''}"
    connection.configure(endpoint_url=settings.endpoint_url, region=settings.region, table_prefix=prefix)
    return Target(settings, prefix)


def tables_named(prefix: str) -> list[str]:
    """The names of the tables that start with ``prefix`` (ListTables, every page; free)."""
    return [name for name in tables.list_table_names() if name.startswith(prefix)]


def drop_tables(prefix: str) -> list[str]:
    """Delete every table whose name starts with ``prefix``; their names."""
    names = tables_named(prefix)
    client = connection.client()
    for name in names:
        client.delete_table(TableName=name)
    return names


def create_keyed_table(name: str, *, sort_type: str) -> None:
    """CreateTable on demand keyed ``pk`` (a string) and ``sk`` (``sort_type``: "S" or "N"), then ACTIVE."""
    tables.create_table(
        {
            "TableName": name,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": sort_type},
            ],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        }
    )


def unmetered(fn: Callable[[], T]) -> T:
    """``fn()`` in an empty context: no open meter and no access pattern sees its calls."""
    return contextvars.Context().run(fn)
