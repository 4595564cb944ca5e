"""errors.is_unavailable: throttling, 5xx and a DynamoDB that does not answer, however wrapped."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
from pynamodb.exceptions import GetError, PutError, UpdateError

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


# ---------------------------------------------------------------- one list of retryable answers


@pytest.mark.parametrize("code", sorted(errors.UNAVAILABLE_CODES))
def test_every_retryable_code_is_unavailable_however_wrapped(code: str) -> None:
    """The web's 503 and a job's retry read the same list (``tracker.tasks`` had its own, one code longer)."""
    assert errors.is_unavailable(client_error(code))
    assert errors.is_unavailable(PutError("wrapped", client_error(code)))


def test_too_many_table_operations_at_once_is_worth_a_later_retry() -> None:
    """LimitExceededException (concurrent CreateTable/UpdateTable/backups) was retried by jobs, a 500 on pages."""
    assert errors.is_unavailable(client_error("LimitExceededException"))


def test_throttling_is_one_part_of_the_list() -> None:
    assert errors.THROTTLING_CODES < errors.UNAVAILABLE_CODES
    assert {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"} == set(
        errors.THROTTLING_CODES
    )


@pytest.mark.parametrize("code", sorted(errors.THROTTLING_CODES))
def test_the_meter_counts_every_throttling_answer(code: str) -> None:
    """RequestLimitExceeded (the account's throughput) was not counted as a throttle."""
    from ddbmodels.core import capacity

    meter = capacity.CapacityMeter()
    meter.record("PutItem", {"Error": {"Code": code}})
    assert meter.throttles == 1


def test_a_write_refused_by_a_transaction_in_progress_is_worth_a_later_retry() -> None:
    """A plain UpdateItem of a milestone while an issue's move into it holds it in a transaction (its ConditionCheck,
    ddbmodels.issues.guarded) is refused with TransactionConflictException: a 503 + Retry-After / a job's retry,
    not a 500."""
    assert errors.is_unavailable(client_error("TransactionConflictException"))
    assert errors.is_unavailable(UpdateError("wrapped", client_error("TransactionConflictException")))
