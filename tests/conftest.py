"""Session services for the whole suite: DynamoDB Local and Redis on free ports, moto for units.

Every run uses its own table prefix, so runs never see each other's data; tests isolate
themselves further by using unique tenant slugs (see tests/tracker/conftest.py).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

# No test may reach real AWS: fake credentials, no instance-metadata look-ups.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"

import ddbmodels
from ddbmodels.core import tables
from devtools import services


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
    tables.create_all()
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
        tables.create_all()
        yield settings
    ddbmodels.configure(endpoint_url=previous.endpoint_url, region=previous.region, table_prefix=previous.table_prefix)


@pytest.fixture(autouse=True)
def _services_for_markers(request: pytest.FixtureRequest) -> None:
    """``@pytest.mark.ddblocal`` tests get DynamoDB Local; ``@pytest.mark.redis`` get Redis."""
    if request.node.get_closest_marker("ddblocal"):
        request.getfixturevalue("ddblocal")
    if request.node.get_closest_marker("redis"):
        request.getfixturevalue("redis_server")
