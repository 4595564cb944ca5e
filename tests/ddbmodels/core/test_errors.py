"""errors.is_unavailable: throttling, 5xx and a DynamoDB that does not answer, however wrapped."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
from pynamodb.exceptions import GetError, PutError

from ddbmodels.core import errors


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "test"}}, "GetItem")


@pytest.mark.parametrize(
    "error",
    [
        client_error("ProvisionedThroughputExceededException"),
        client_error("ThrottlingException"),
        client_error("RequestLimitExceeded"),
        GetError("wrapped", client_error("ProvisionedThroughputExceededException")),
        GetError("wrapped", ReadTimeoutError(endpoint_url="http://x")),
        PutError("wrapped", ConnectTimeoutError(endpoint_url="http://x")),
        EndpointConnectionError(endpoint_url="http://x"),
        errors.Unavailable(),
    ],
)
def test_throttling_and_outages_are_unavailable(error: Exception) -> None:
    assert errors.is_unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        client_error("ConditionalCheckFailedException"),
        client_error("ValidationException"),
        PutError("wrapped", client_error("ConditionalCheckFailedException")),
        errors.NotFound(),
        ValueError("a bug"),
    ],
)
def test_refusals_and_bugs_are_not_unavailable(error: Exception) -> None:
    assert not errors.is_unavailable(error)


def test_an_error_raised_while_handling_an_outage_is_unavailable_too() -> None:
    error = RuntimeError("while reading")
    error.__cause__ = EndpointConnectionError(endpoint_url="http://x")
    assert errors.is_unavailable(error)
