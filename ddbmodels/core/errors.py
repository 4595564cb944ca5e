"""The one domain error tree, raised at the ddbmodels boundary (botocore/PynamoDB errors stop here).

    DomainError                       code           what the web answers
    ├── NotFound                      not_found          404
    ├── AlreadyExists                 already_exists     409
    │   └── KeyUsed                   idempotency_key_used  (never a page: the caller returns the first result)
    ├── KeyReused                     idempotency_key_reused 422 (API only): the key was sent with another request
    ├── ChangedSinceRead              changed_since_read 409, naming what it is now
    ├── InvalidTransition             invalid_transition 409, naming the state it is in
    ├── InvalidInput                  invalid_input      400
    │   └── MilestoneNotOpen          milestone_not_open 409: the milestone was closed (or is being closed) meanwhile
    ├── Contention                    contention         503 + Retry-After: every retry lost a race
    │   └── SequenceContention        sequence_contention
    └── Unavailable                   unavailable        503 + Retry-After: throttled or out past retries

Each error keeps its keyword context (``error.context``) so a page can say what happened.
"""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from pynamodb.exceptions import PynamoDBException


class DomainError(Exception):
    """Base of every error this package raises on purpose; ``code`` is stable for callers."""

    code = "domain_error"

    def __init_subclass__(cls, code: str = "", **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)  # type: ignore[arg-type]
        if code:
            cls.code = code  # ``class NotFound(DomainError, code="not_found")``

    def __init__(self, message: str = "", **context: object) -> None:
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.context = context


class NotFound(DomainError, code="not_found"):
    """The item does not exist."""


class IssueDeleted(NotFound, code="issue_deleted"):
    """The issue a write belongs to was deleted (a tombstone, or gone): nothing was written."""


class AlreadyExists(DomainError, code="already_exists"):
    """An item with this key already exists."""


class KeyUsed(AlreadyExists, code="idempotency_key_used"):
    """This idempotency key already created an item (its record names it); nothing new was written."""


class KeyReused(DomainError, code="idempotency_key_reused"):
    """This idempotency key already created an item for a different request (another fingerprint): nothing was
    written, and the first item is not the answer. Only callers that pass a fingerprint (the API) can meet it."""


class ChangedSinceRead(DomainError, code="changed_since_read"):
    """The item changed since it was read: the conditional write was refused and nothing changed.

    ``current`` is what the item is now where the writer knows it (a state, or None when the
    item is gone or was not re-read); ``wanted`` the state the change would have led to.
    """

    def __init__(self, message: str = "", *, current: str | None = None, wanted: str | None = None, **context: object):
        super().__init__(message, current=current, wanted=wanted, **context)
        self.current = current
        self.wanted = wanted


class InvalidTransition(DomainError, code="invalid_transition"):
    """The item is not in a state that allows this change (the workflow forbids it)."""


class InvalidInput(DomainError, code="invalid_input"):
    """The input cannot be stored as given (a name, a size, a parameter)."""


class MilestoneNotOpen(InvalidInput, code="milestone_not_open"):
    """The milestone a write puts an issue into is being closed or was closed (checked in the write's own
    transaction): nothing was written. ``milestone`` is its id; ``name`` and ``state`` what it was when refused."""

    def __init__(self, message: str = "", *, milestone: str, name: str | None = None, state: str | None = None):
        if not message:
            what = {"closing": "is being closed", "closed": "was closed"}.get(state or "", "no longer exists")
            message = f"milestone {name or milestone} {what}: choose an open one"
        super().__init__(message, milestone=milestone, name=name, state=state)
        self.milestone = milestone
        self.name = name
        self.state = state


class Contention(DomainError, code="contention"):
    """Too many writers at once: every bounded retry lost its race, and nothing was written."""


class SequenceContention(Contention, code="sequence_contention"):
    """Too many concurrent writers took the next number; every retry lost the race."""


class Unavailable(DomainError, code="unavailable"):
    """DynamoDB (or storage) throttled or failed past the bounded retries; try again shortly."""


# The one list of DynamoDB's retryable answers (botocore has retried each a few times already).
# A request throttled: the table's or the account's throughput, or a partition's 1,000 WCU / 3,000 RCU.
THROTTLING_CODES = frozenset({"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"})
# Refused for load, not for the request: worth a later retry (the web's 503 + Retry-After, a job's retry).
# LimitExceededException: too many table operations at once (CreateTable, UpdateTable, backups).
# TransactionConflictException: a plain write refused because a transaction holds its item that instant (a milestone
# an issue's move is checking: ddbmodels.issues.guarded); nothing was written.
UNAVAILABLE_CODES = THROTTLING_CODES | {
    "InternalServerError",
    "ServiceUnavailable",
    "LimitExceededException",
    "TransactionConflictException",
}
# A transaction's cancellation reasons that another attempt may clear: a concurrent transaction on one
# of its items, or throttling (a condition that failed is an answer, not a reason to try again).
RETRYABLE_REASONS = frozenset({"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"})


def is_unavailable(error: BaseException) -> bool:
    """True when ``error`` (or what caused it) is DynamoDB throttling or failing, or not answering.

    Throttling and 5xx codes left after botocore's bounded retries, and connection errors and
    timeouts (botocore's, which PynamoDB wraps): the request may well succeed shortly. The web
    answers these with a 503 and ``Retry-After``; jobs back off and retry.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, Unavailable):
            return True
        if isinstance(current, NETWORK_ERRORS):
            return True  # EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ConnectionClosedError
        if isinstance(current, ClientError) and current.response.get("Error", {}).get("Code") in UNAVAILABLE_CODES:
            return True
        # PynamoDB keeps the botocore error it wraps as ``cause`` (a ClientError or a BotoCoreError).
        cause = getattr(current, "cause", None) if isinstance(current, PynamoDBException) else None
        current = cause or current.__cause__ or current.__context__
    return False


def response_code(error: BaseException) -> str | None:
    """DynamoDB's error code behind a PynamoDB error; None when no answer came (a dropped connection, a timeout).

    PynamoDB's own ``cause_response_code`` fails on a cause without an answer (its ``response``
    is None), which is exactly the case of a lost answer.
    """
    cause = getattr(error, "cause", None)
    if not isinstance(cause, ClientError):
        return None
    return cause.response.get("Error", {}).get("Code")


def is_conditional_failure(error: BaseException) -> bool:
    """True when a PynamoDB write failed only because its condition was false."""
    if not isinstance(error, PynamoDBException):
        return False
    return response_code(error) == "ConditionalCheckFailedException"


# What botocore (any AWS call: DynamoDB, S3 storage) and PynamoDB raise, named here so the site can
# catch them without importing either library: only ddbmodels talks to AWS's clients.
AWS_ERRORS: tuple[type[Exception], ...] = (BotoCoreError, ClientError)
PYNAMODB_ERRORS: tuple[type[Exception], ...] = (PynamoDBException,)
# botocore's network failures, where no answer came (EndpointConnectionError, ConnectTimeoutError,
# ReadTimeoutError, ConnectionClosedError): worth trying again later.
NETWORK_ERRORS: tuple[type[Exception], ...] = (BotoConnectionError, HTTPClientError)
