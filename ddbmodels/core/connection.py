"""Where DynamoDB is — endpoint, region, credentials and table prefix — decided in one place.

Models declare a *base* table name (``"issues"``); the physical name is
``<DYNAMODB_TABLE_PREFIX><base>`` (``tracker-issues``). ``configure()`` re-points every
registered model at once, which is how tests give each run its own prefix and how a benchmark
talks to its own DynamoDB Local. Nothing here imports Django.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import botocore.config
import botocore.session
from pynamodb.models import Model

DEFAULT_REGION = "us-east-1"
DEFAULT_PREFIX = "tracker-"

M = TypeVar("M", bound=type[Model])


@dataclass(frozen=True)
class DynamoSettings:
    """The three facts every model needs: where, which region, which name prefix."""

    endpoint_url: str | None
    region: str
    table_prefix: str

    @property
    def is_local(self) -> bool:
        return self.endpoint_url is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> DynamoSettings:
        return cls(
            endpoint_url=environ.get("DYNAMODB_ENDPOINT_URL") or None,
            region=environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION,
            table_prefix=environ.get("DYNAMODB_TABLE_PREFIX", DEFAULT_PREFIX),
        )


_settings = DynamoSettings.from_env()
_registry: dict[str, type[Model]] = {}


def current() -> DynamoSettings:
    """The settings models point at now."""
    return _settings


def table_name(base: str) -> str:
    """Physical name of a table: the prefix, then the base name."""
    return f"{_settings.table_prefix}{base}"


def register(base: str) -> Callable[[M], M]:
    """Class decorator: the model owns table ``base``; point it at the current settings."""

    def decorate(model: M) -> M:
        model.Meta.base_table_name = base  # type: ignore[attr-defined]
        _registry[base] = model
        _apply(model, _settings)
        return model

    return decorate


def registered() -> dict[str, type[Model]]:
    """Base table name → the model that owns (and creates) it."""
    return dict(_registry)


def configure(
    *,
    endpoint_url: str | None | object = ...,
    region: str | None = None,
    table_prefix: str | None = None,
) -> DynamoSettings:
    """Re-point every registered model; arguments left out keep their current value."""
    global _settings
    changes: dict[str, object] = {}
    if endpoint_url is not ...:
        changes["endpoint_url"] = endpoint_url or None
    if region is not None:
        changes["region"] = region
    if table_prefix is not None:
        changes["table_prefix"] = table_prefix
    new = replace(_settings, **changes)  # type: ignore[arg-type]
    if new == _settings:
        return _settings  # nothing moved: keep the cached connections (and their HTTP pools)
    _settings = new
    for model in _registry.values():
        _apply(model, _settings)
    return _settings


def _apply(model: type[Model], settings: DynamoSettings) -> None:
    meta = model.Meta
    meta.table_name = f"{settings.table_prefix}{meta.base_table_name}"  # type: ignore[attr-defined]
    meta.host = settings.endpoint_url
    meta.region = settings.region
    # DynamoDB Local accepts any signature but botocore refuses to sign without credentials;
    # real AWS keeps the usual chain (environment, profile, instance role).
    has_env_credentials = bool(os.environ.get("AWS_ACCESS_KEY_ID"))
    local_keys = settings.is_local and not has_env_credentials
    meta.aws_access_key_id = "local" if local_keys else None
    meta.aws_secret_access_key = "local" if local_keys else None
    # Connections are cached per class (subclasses of a polymorphic model each hold one).
    stack: list[type[Model]] = [model]
    while stack:
        cls = stack.pop()
        cls._connection = None
        stack.extend(cls.__subclasses__())


_clients: dict[DynamoSettings, Any] = {}
_clients_lock = threading.Lock()

# Throttling and 5xx answers are retried by botocore's "standard" mode: exponential backoff
# with full jitter, bounded — unlike a fixed one-second sleep forever.
CLIENT_RETRIES = {"mode": "standard", "total_max_attempts": 10}


def client() -> Any:
    """A low-level botocore DynamoDB client for the current settings (any table, not only ours).

    One client per settings, shared by threads (botocore clients are thread-safe). Its calls go
    through the capacity meter like PynamoDB's.
    """
    settings = _settings
    with _clients_lock:
        if settings not in _clients:
            session = botocore.session.get_session()
            local_keys = settings.is_local and not os.environ.get("AWS_ACCESS_KEY_ID")
            _clients[settings] = session.create_client(
                "dynamodb",
                region_name=settings.region,
                endpoint_url=settings.endpoint_url,
                aws_access_key_id="local" if local_keys else None,
                aws_secret_access_key="local" if local_keys else None,
                config=botocore.config.Config(retries=CLIENT_RETRIES, max_pool_connections=32),  # type: ignore[arg-type]
            )
        return _clients[settings]
