"""Which failures a Celery task retries later (``tracker.tasks.is_transient``), named without botocore or PynamoDB.

tracker.tasks takes botocore's network errors and PynamoDB's exception through ddbmodels.core.errors
(``NETWORK_ERRORS``, ``PYNAMODB_ERRORS``): only ddbmodels imports AWS's libraries (``make lint``).
"""

from __future__ import annotations

import pytest
import redis
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from pynamodb.exceptions import PutError, QueryError

from ddbmodels.core import errors
from tracker.tasks import is_transient


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code}}, "PutItem")


TRANSIENT = [
    EndpointConnectionError(endpoint_url="http://localhost:8000"),
    ReadTimeoutError(endpoint_url="http://localhost:8000"),
    ConnectionResetError(104, "reset"),
    redis.exceptions.ConnectionError("Redis is down"),
    redis.exceptions.TimeoutError("Redis is frozen"),
    client_error("ProvisionedThroughputExceededException"),
    PutError("throttled", cause=client_error("ThrottlingException")),
    QueryError("no answer", cause=EndpointConnectionError(endpoint_url="http://localhost:8000")),  # type: ignore[arg-type]
]
LASTING = [
    ValueError("a bug"),
    KeyError("tracker.tasks.no_such_task"),
    client_error("ValidationException"),
    PutError("condition", cause=client_error("ConditionalCheckFailedException")),
    QueryError("no cause"),
]


@pytest.mark.parametrize("error", TRANSIENT, ids=repr)
def test_network_trouble_throttling_and_redis_down_are_retried(error: BaseException) -> None:
    assert is_transient(error)


@pytest.mark.parametrize("error", LASTING, ids=repr)
def test_bugs_refusals_and_false_conditions_are_not(error: BaseException) -> None:
    assert not is_transient(error)


def test_botocores_network_errors_are_named_by_ddbmodels() -> None:
    assert isinstance(EndpointConnectionError(endpoint_url="x"), errors.NETWORK_ERRORS)
    assert isinstance(ReadTimeoutError(endpoint_url="x"), errors.NETWORK_ERRORS)
    assert not isinstance(client_error("ThrottlingException"), errors.NETWORK_ERRORS)
