"""Every DynamoDB client waits seconds, not minutes: the models' Meta and the low-level client alike."""

from __future__ import annotations

from ddbmodels.core import connection
from ddbmodels.core.connection import DynamoSettings


def test_the_production_defaults_fit_a_web_request() -> None:
    settings = DynamoSettings.from_env({})
    assert (settings.connect_timeout, settings.read_timeout, settings.max_attempts) == (1.0, 2.0, 3)
    config = connection.client_config(settings)
    assert (config.connect_timeout, config.read_timeout) == (1.0, 2.0)
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}


def test_the_environment_can_change_them() -> None:
    environ = {"DYNAMODB_CONNECT_TIMEOUT": "0.5", "DYNAMODB_READ_TIMEOUT": "4", "DYNAMODB_MAX_ATTEMPTS": "5"}
    settings = DynamoSettings.from_env(environ)
    assert (settings.connect_timeout, settings.read_timeout, settings.max_attempts) == (0.5, 4.0, 5)


def test_every_model_gets_the_timeouts_and_attempts_it_is_configured_with() -> None:
    before = connection.current()
    try:
        connection.configure(connect_timeout=0.7, read_timeout=1.3, max_attempts=4)
        for model in connection.registered().values():
            meta = model.Meta
            assert meta.connect_timeout_seconds == 0.7, model
            assert meta.read_timeout_seconds == 1.3, model
            assert meta.max_retry_attempts == 3, model  # PynamoDB counts the retries, not the attempts
    finally:
        connection.configure(
            connect_timeout=before.connect_timeout, read_timeout=before.read_timeout, max_attempts=before.max_attempts
        )
