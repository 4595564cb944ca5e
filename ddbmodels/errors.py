"""Domain errors raised at the ddbmodels boundary (botocore/PynamoDB errors never leak past it)."""

from __future__ import annotations

from pynamodb.exceptions import PynamoDBException


class DomainError(Exception):
    """Base of every error this package raises on purpose; ``code`` is stable for callers."""

    code = "domain_error"

    def __init__(self, message: str = "", **context: object) -> None:
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.context = context


class NotFound(DomainError):
    """The item does not exist."""

    code = "not_found"


class AlreadyExists(DomainError):
    """An item with this key already exists."""

    code = "already_exists"


class StaleWrite(DomainError):
    """The item changed since it was read (optimistic lock refused the write)."""

    code = "stale_write"


class InvalidTransition(DomainError):
    """The item is not in a state that allows this change."""

    code = "invalid_transition"


class SequenceContention(DomainError):
    """Too many concurrent writers took the next number; every retry lost the race."""

    code = "sequence_contention"


def is_conditional_failure(error: BaseException) -> bool:
    """True when a PynamoDB write failed only because its condition was false."""
    if not isinstance(error, PynamoDBException):
        return False
    return error.cause_response_code == "ConditionalCheckFailedException"
