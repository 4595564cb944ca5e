"""The one domain error tree, raised at the ddbmodels boundary (botocore/PynamoDB errors stop here).

    DomainError                       code           what the web answers
    ├── NotFound                      not_found          404
    ├── AlreadyExists                 already_exists     409
    ├── ChangedSinceRead              changed_since_read 409, naming what it is now
    ├── InvalidTransition             invalid_transition 409, naming the state it is in
    ├── InvalidInput                  invalid_input      400
    ├── Contention                    contention         503 + Retry-After: every retry lost a race
    │   └── SequenceContention        sequence_contention
    └── Unavailable                   unavailable        503 + Retry-After: throttled or out past retries

Each error keeps its keyword context (``error.context``) so a page can say what happened.
"""

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


class ChangedSinceRead(DomainError):
    """The item changed since it was read: the conditional write was refused and nothing changed.

    ``current`` is what the item is now where the writer knows it (a state, or None when the
    item is gone or was not re-read); ``wanted`` the state the change would have led to.
    """

    code = "changed_since_read"

    def __init__(self, message: str = "", *, current: str | None = None, wanted: str | None = None, **context: object):
        super().__init__(message, current=current, wanted=wanted, **context)
        self.current = current
        self.wanted = wanted


class InvalidTransition(DomainError):
    """The item is not in a state that allows this change (the workflow forbids it)."""

    code = "invalid_transition"


class InvalidInput(DomainError):
    """The input cannot be stored as given (a name, a size, a parameter)."""

    code = "invalid_input"


class Contention(DomainError):
    """Too many writers at once: every bounded retry lost its race, and nothing was written."""

    code = "contention"


class SequenceContention(Contention):
    """Too many concurrent writers took the next number; every retry lost the race."""

    code = "sequence_contention"


class Unavailable(DomainError):
    """DynamoDB (or storage) throttled or failed past the bounded retries; try again shortly."""

    code = "unavailable"


def is_conditional_failure(error: BaseException) -> bool:
    """True when a PynamoDB write failed only because its condition was false."""
    if not isinstance(error, PynamoDBException):
        return False
    return error.cause_response_code == "ConditionalCheckFailedException"
