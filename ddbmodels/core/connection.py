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
from typing import TYPE_CHECKING, Any, TypeVar

import botocore.config
import botocore.session

from ddbmodels.core import fast_parse

if TYPE_CHECKING:  # the registry holds PynamoDB models; importing PynamoDB is left to them
    from pynamodb.models import Model

DEFAULT_REGION = "us-east-1"
DEFAULT_PREFIX = "tracker-"
# A web request must give up on DynamoDB within seconds, not minutes (botocore's own defaults are
# 60 s to connect and 60 s to read; PynamoDB's 15 s and 30 s). DynamoDB answers in milliseconds,
# so these only end a stalled or unreachable endpoint: at most MAX_ATTEMPTS × (connect or read
# timeout) plus the jittered backoff between attempts (≤ 1 s, then ≤ 2 s) — about 7 s in all.
DEFAULT_CONNECT_TIMEOUT = 1.0
DEFAULT_READ_TIMEOUT = 2.0
DEFAULT_MAX_ATTEMPTS = 3  # the first call and 2 retries (throttling, 5xx, connection errors, timeouts)

M = TypeVar("M", bound="type[Model]")


@dataclass(frozen=True)
class DynamoSettings:
    """The facts every model needs: where, which region, which name prefix; and how long to wait."""

    endpoint_url: str | None
    region: str
    table_prefix: str
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT  # seconds
    read_timeout: float = DEFAULT_READ_TIMEOUT  # seconds
    max_attempts: int = DEFAULT_MAX_ATTEMPTS  # botocore "standard" retries: attempts in all, backoff between

    @property
    def is_local(self) -> bool:
        return self.endpoint_url is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> DynamoSettings:
        return cls(
            endpoint_url=environ.get("DYNAMODB_ENDPOINT_URL") or None,
            region=environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION,
            table_prefix=environ.get("DYNAMODB_TABLE_PREFIX", DEFAULT_PREFIX),
            connect_timeout=float(environ.get("DYNAMODB_CONNECT_TIMEOUT") or DEFAULT_CONNECT_TIMEOUT),
            read_timeout=float(environ.get("DYNAMODB_READ_TIMEOUT") or DEFAULT_READ_TIMEOUT),
            max_attempts=int(environ.get("DYNAMODB_MAX_ATTEMPTS") or DEFAULT_MAX_ATTEMPTS),
        )


_settings = DynamoSettings.from_env()
_registry: dict[str, type[Model]] = {}
_loader: Callable[[], None] | None = None  # imports every table package (set by ``ddbmodels``)


def set_table_loader(loader: Callable[[], None]) -> None:
    """What ``registered()`` calls first, so the registry is whole however ddbmodels was imported."""
    global _loader
    _loader = loader


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
    """Base table name → the model that owns (and creates) it: every table package's, loaded now if not yet."""
    if _loader is not None:
        _loader()
    return dict(_registry)


def configure(
    *,
    endpoint_url: str | None | object = ...,
    region: str | None = None,
    table_prefix: str | None = None,
    connect_timeout: float | None = None,
    read_timeout: float | None = None,
    max_attempts: int | None = None,
) -> DynamoSettings:
    """Re-point every registered model; arguments left out keep their current value."""
    global _settings
    changes: dict[str, object] = {}
    if endpoint_url is not ...:
        changes["endpoint_url"] = endpoint_url or None
    given = {
        "region": region,
        "table_prefix": table_prefix,
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "max_attempts": max_attempts,
    }
    changes.update({name: value for name, value in given.items() if value is not None})
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
    # PynamoDB passes these to its botocore client ("standard" retries, 1 + max_retry_attempts in
    # all). Its Meta declares the timeouts int; botocore takes float seconds.
    meta.connect_timeout_seconds = settings.connect_timeout  # type: ignore[assignment]
    meta.read_timeout_seconds = settings.read_timeout  # type: ignore[assignment]
    meta.max_retry_attempts = settings.max_attempts - 1
    # Connections are cached per class (subclasses of a polymorphic model each hold one).
    stack: list[type[Model]] = [model]
    while stack:
        cls = stack.pop()
        cls._connection = None
        stack.extend(cls.__subclasses__())


_clients: dict[DynamoSettings, Any] = {}
_clients_lock = threading.Lock()


def client_config(settings: DynamoSettings) -> botocore.config.Config:
    """Timeouts and retries of a botocore client, the same as the models'.

    Throttling, 5xx answers, connection errors and timeouts are retried by botocore's "standard"
    mode: exponential backoff with full jitter, ``max_attempts`` in all — then the error reaches
    the caller (a web page answers 503; a Celery task backs off and retries later).
    """
    return botocore.config.Config(
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        retries={"mode": "standard", "total_max_attempts": settings.max_attempts},
        max_pool_connections=32,
    )


def client() -> Any:
    """A low-level botocore DynamoDB client for the current settings (any table, not only ours).

    One client per settings, shared by threads (botocore clients are thread-safe). Its calls go
    through the capacity meter like PynamoDB's; its answers are read by ``fast_parse``.
    """
    settings = _settings
    with _clients_lock:
        if settings not in _clients:
            session = botocore.session.get_session()
            # flat attribute values read as sent (the same output, a fraction of the CPU): fast_parse
            session.register_component("response_parser_factory", fast_parse.parser_factory())
            local_keys = settings.is_local and not os.environ.get("AWS_ACCESS_KEY_ID")
            _clients[settings] = session.create_client(
                "dynamodb",
                region_name=settings.region,
                endpoint_url=settings.endpoint_url,
                aws_access_key_id="local" if local_keys else None,
                aws_secret_access_key="local" if local_keys else None,
                config=client_config(settings),
            )
        return _clients[settings]
