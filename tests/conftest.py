"""Session services for the whole suite: DynamoDB Local and Redis on free ports, moto for units.

Every run uses its own table prefix, so runs never see each other's data; tests isolate
themselves further by using unique tenant slugs (see tests/tracker/conftest.py).

Also for any test: ``tables`` (tables like anybody's, tests/raw_tables.py), ``dynamodb_refuses``
(DynamoDB answering a chosen call with an error, below the code under test:
tests/dynamodb_faults.py) and ``fixed_clock`` (the code's clock pinned, for tests that depend
on the day or the month).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

# No test may reach real AWS: fake credentials, no instance-metadata look-ups.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"

import ddbmodels
from ddbmodels.core import connection, keys
from ddbmodels.core import tables as model_tables
from devtools import services
from tests import dynamodb_faults, raw_tables  # before any botocore session exists: every session gets its hook
from tests.aws_operations import (
    pytest_sessionfinish,  # noqa: F401  (the AWS operations the run made, against docs/iam-policy.json)
)


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[services.Service]:
    """DynamoDB Local (in memory) on a free port for the whole session."""
    service = services.start("dynamodb")
    yield service
    service.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[services.Service]:
    """A throwaway Redis on a free port for the whole session."""
    service = services.start("redis")
    yield service
    service.stop()


@pytest.fixture(scope="session")
def ddb(dynamodb_local: services.Service) -> Iterator[ddbmodels.DynamoSettings]:
    """Models pointed at DynamoDB Local with a prefix unique to this run; tables created."""
    previous = ddbmodels.current()
    settings = ddbmodels.configure(
        endpoint_url=dynamodb_local.url, region="us-east-1", table_prefix=f"test-{uuid.uuid4().hex[:8]}-"
    )
    model_tables.create_all()
    yield settings
    ddbmodels.configure(endpoint_url=previous.endpoint_url, region=previous.region, table_prefix=previous.table_prefix)


@pytest.fixture
def ddblocal(ddb: ddbmodels.DynamoSettings) -> Iterator[ddbmodels.DynamoSettings]:
    """Per-test: make sure the models point at DynamoDB Local (a moto test may have moved them)."""
    ddbmodels.configure(endpoint_url=ddb.endpoint_url, region=ddb.region, table_prefix=ddb.table_prefix)
    return ddb


@pytest.fixture
def moto_ddb() -> Iterator[ddbmodels.DynamoSettings]:
    """Models pointed at moto's in-process DynamoDB, fresh tables for this test only."""
    from moto import mock_aws

    previous = ddbmodels.current()
    with mock_aws():
        settings = ddbmodels.configure(endpoint_url=None, region="us-east-1", table_prefix="moto-")
        model_tables.create_all()
        yield settings
    ddbmodels.configure(endpoint_url=previous.endpoint_url, region=previous.region, table_prefix=previous.table_prefix)


@pytest.fixture(autouse=True)
def _services_for_markers(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.ddblocal`` tests get DynamoDB Local; ``@pytest.mark.redis`` get Redis."""
    if request.node.get_closest_marker("ddblocal"):
        request.getfixturevalue("ddblocal")
    if request.node.get_closest_marker("redis"):
        request.getfixturevalue("redis_server")


@pytest.fixture
def tables(ddblocal: ddbmodels.DynamoSettings) -> Iterator[Callable[..., str]]:
    """Factory of tables like anybody's (``raw_tables.create_table``'s arguments), deleted after the test."""
    made: list[str] = []

    def make(*args: Any, **kwargs: Any) -> str:
        made.append(raw_tables.create_table(*args, **kwargs))
        return made[-1]

    yield make
    for name in made:
        connection.client().delete_table(TableName=name)


@pytest.fixture
def dynamodb_refuses() -> Iterator[Callable[..., dynamodb_faults.Refusal]]:
    """``dynamodb_refuses("PutItem", table=…, code=…)``: DynamoDB answers that call with the error.

    The refusal happens below PynamoDB (see tests/dynamodb_faults.py), so the code under test runs
    for real; it returns the armed refusal, whose ``refused`` lists the calls refused. All
    refusals end with the test.
    """

    def refuse(operation: str, **how: Any) -> dynamodb_faults.Refusal:
        return dynamodb_faults.arm(dynamodb_faults.Refusal(operation, **how))

    yield refuse
    dynamodb_faults.disarm_all()


FixedClock = Callable[[datetime], datetime]


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> FixedClock:
    """``fixed_clock(at)``: from now on in this test, the code's clock says ``at`` (aware UTC).

    For code that reads the time itself and takes no ``now=``: ddbmodels' one ``utcnow`` (and every
    module that imported it) and Django's ``timezone.now``. A test that depends on which day or
    month it is then gives the same answer at any hour, midnight included.
    """
    from django.utils import timezone

    def freeze(at: datetime) -> datetime:
        assert at.tzinfo is not None, "a fixed clock is aware UTC"
        real = keys.utcnow
        for module in list(sys.modules.values()):
            name = getattr(module, "__name__", "")
            if name.startswith(("ddbmodels", "tracker")) and getattr(module, "utcnow", None) is real:
                monkeypatch.setattr(module, "utcnow", lambda: at)
        monkeypatch.setattr(timezone, "now", lambda: at)
        return at

    return freeze


MovingClock = Callable[[datetime], None]


@pytest.fixture
def moving_clock(monkeypatch: pytest.MonkeyPatch) -> MovingClock:
    """``moving_clock(at)``: the code's clock says ``at`` from now on, and may be moved on again in the same test.

    (``fixed_clock`` pins one moment per test: a module it patched keeps that moment.) The same
    modules as ``fixed_clock``: ddbmodels' and tracker's ``utcnow`` and Django's ``timezone.now``.
    """
    from django.utils import timezone

    now: list[datetime] = []
    real = keys.utcnow

    def move(at: datetime) -> None:
        now[:] = [at]
        for module in list(sys.modules.values()):
            name = getattr(module, "__name__", "")
            if name.startswith(("ddbmodels", "tracker")) and getattr(module, "utcnow", None) is real:
                monkeypatch.setattr(module, "utcnow", lambda: now[0])
        monkeypatch.setattr(timezone, "now", lambda: now[0])

    return move


@pytest.fixture
def lost_answers(request: pytest.FixtureRequest) -> Iterator[dynamodb_faults.LostAnswers]:
    """30% of DynamoDB's answers to writes lost after the write happened (seeded), for the rest of the test.

    A module sets ``LOST_ANSWERS_SEED`` to pick its own seeded sequence of losses.
    """
    seed = getattr(request.module, "LOST_ANSWERS_SEED", 7)
    answers = dynamodb_faults.lose(dynamodb_faults.LostAnswers(dynamodb_faults.WRITES, rate=0.3, seed=seed))
    yield answers
    dynamodb_faults.disarm_all()
