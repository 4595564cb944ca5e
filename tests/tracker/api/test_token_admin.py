"""API tokens in the admin: staff find one (by its hint, or the whole token a scanner reported) and revoke it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.models import ApiToken

pytestmark = pytest.mark.django_db
LIST = "/admin/tracker/apitoken/"


def _staff(*perms: str) -> Client:
    user = User.objects.create_user("staffer", password="pw-for-tests", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=perms))
    client = Client()
    client.force_login(user)
    return client


def test_staff_find_a_reported_token_by_the_whole_token_and_revoke_it(
    world: World, api_client: ApiClientFactory
) -> None:
    leaked, other = api_client(world, role="member"), api_client(world, role="owner", scope="admin")
    staff = _staff("view_apitoken", "change_apitoken")
    found = staff.get(LIST, {"q": leaked.secret}).content.decode()
    assert leaked.token.hint in found
    assert other.token.hint not in found
    by_hint = staff.get(LIST, {"q": leaked.token.hint[-4:]}).content.decode()
    assert leaked.token.hint in by_hint
    response = staff.post(LIST, {"action": "revoke", "_selected_action": [leaked.token.pk]}, follow=True)
    assert "1 token(s) revoked" in response.content.decode()
    assert leaked.get("/api/v1/token").status_code == 401
    assert other.get("/api/v1/token").status_code == 200
    assert ApiToken.objects.get(pk=other.token.pk).revoked_at is None


def test_nobody_makes_a_token_in_the_admin_and_view_only_staff_cannot_revoke(
    world: World, api_client: ApiClientFactory
) -> None:
    token = api_client(world).token
    viewer = _staff("view_apitoken")
    assert viewer.get(LIST).status_code == 200
    assert viewer.get(f"{LIST}add/").status_code == 403
    viewer.post(LIST, {"action": "revoke", "_selected_action": [token.pk]})
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None
    page = viewer.get(f"{LIST}{token.pk}/change/").content.decode()
    assert token.key_hash not in page
