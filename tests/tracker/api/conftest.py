"""API tests: a client that calls ``/api/v1/`` with a Bearer token of one person in one team.

``api_client(world, role="member", scope="write")`` makes a token for ``world``'s person of that role (through
``tracker.services.api_tokens.token_create``, as the account page and the command do) and answers a Django test
client that sends it on every request (``Authorization: Bearer trk_…``), never a session cookie. The client
carries ``secret`` (the token), ``token`` (the ``ApiToken`` row) and ``membership``. The autouse fixtures of
tests/tracker/conftest.py (DynamoDB Local, Redis, the database) apply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from tests.tracker.conftest import World
from tracker.models import ApiToken, Membership
from tracker.services import api_tokens


class ApiClient(Client):
    """A test client sending one token; ``secret``, ``token`` and ``membership`` say whose."""

    secret: str
    token: ApiToken
    membership: Membership

    def post_json(self, path: str, data: Any = None, **extra: Any) -> Any:
        return self.post(path, data, content_type="application/json", **extra)

    def patch_json(self, path: str, data: Any = None, **extra: Any) -> Any:
        return self.patch(path, data, content_type="application/json", **extra)


ApiClientFactory = Callable[..., ApiClient]


def client_with_token(membership: Membership, *, scope: str, **token: Any) -> ApiClient:
    """A client sending a new token of ``membership`` with ``scope`` (``expires_days``, ``name`` passed on)."""
    created = api_tokens.token_create(membership=membership, name=token.pop("name", "tests"), scope=scope, **token)
    assert created.secret is not None
    client = ApiClient(headers={"Authorization": f"Bearer {created.secret}"})
    client.secret = created.secret
    client.token = created.token
    client.membership = membership
    return client


@pytest.fixture
def api_client() -> ApiClientFactory:
    """Factory: ``api_client(world, role="member", scope="write", expires_days=90)`` → an ``ApiClient``."""

    def make(world: World, role: str = "member", scope: str = "write", **token: Any) -> ApiClient:
        user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
        membership = Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)
        return client_with_token(membership, scope=scope, **token)

    return make
