"""``/account/tokens/``: a person lists, makes (secret shown once, never cached) and revokes their API tokens."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, RequestFactory
from django.utils import timezone

from tests.tracker.conftest import World
from tracker.api.auth import TokenAuth
from tracker.models import ApiToken, Membership
from tracker.services import api_tokens

pytestmark = pytest.mark.django_db
PAGE = "/account/tokens/"


def _page(client: Client) -> tuple[str, dict[str, str]]:
    """The page's text and its form's fields as rendered (the idempotency key among them)."""
    response = client.get(PAGE)
    assert response.status_code == 200
    text = response.content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', text)
    assert key is not None
    return text, {"idempotency_key": key.group(1)}


def _secret(text: str) -> str:
    secrets = re.findall(r'id="new-token-value"[^>]*>(trk_[0-9A-Za-z]{36})</textarea>', text)
    assert len(secrets) == 1
    return secrets[0]


def _authenticates(secret: str) -> Any:
    return TokenAuth()(RequestFactory().get("/api/v1/x", headers={"Authorization": f"Bearer {secret}"}))


def test_a_member_makes_a_token_shown_once_never_cached_and_it_works(world: World) -> None:
    client = world.client_for(world.member)
    _, fields = _page(client)
    form = {**fields, "team": world.slug, "name": "CI job", "scope": "write", "expires_days": "30"}
    response = client.post(PAGE, form)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    text = response.content.decode()
    secret = _secret(text)
    caller = _authenticates(secret)
    assert caller is not None
    assert (caller.membership.user, caller.scope) == (world.member, "write")
    token = ApiToken.objects.get()
    assert (token.name, token.scope) == ("CI job", "write")
    assert timedelta(days=29, hours=23) < token.expires_at - token.created_at <= timedelta(days=30)
    assert "shown only this once" in text
    later = client.get(PAGE).content.decode()
    assert secret not in later  # the list shows its hint, never the token
    assert token.hint in later
    assert "CI job" in later


def test_the_same_form_sent_again_makes_nothing_and_says_it_was_shown_once(world: World) -> None:
    client = world.client_for(world.owner)
    _, fields = _page(client)
    form = {**fields, "team": world.slug, "name": "bot", "scope": "admin", "expires_days": "90"}
    first = client.post(PAGE, form).content.decode()
    again = client.post(PAGE, form)
    assert again.status_code == 200
    text = again.content.decode()
    assert ApiToken.objects.count() == 1
    assert _secret(first) not in text
    assert "was shown only then" in text
    assert not re.search(r"trk_[0-9A-Za-z]{36}", text)


def test_a_viewer_may_not_make_a_write_token_and_bad_input_makes_nothing(world: World) -> None:
    client = world.client_for(world.viewer)
    _, fields = _page(client)
    for form in [
        {"team": world.slug, "scope": "write", "expires_days": "90"},
        {"team": world.slug, "scope": "read", "expires_days": "366"},
        {"team": world.slug, "scope": "read", "expires_days": "0"},
        {"team": "someone-elses", "scope": "read", "expires_days": "90"},
    ]:
        response = client.post(PAGE, {**fields, **form})
        assert response.status_code == 400, form
    refused = client.post(PAGE, {**fields, "team": world.slug, "scope": "write", "expires_days": "90"})
    assert "your tokens may have the scope read" in refused.content.decode()
    assert not ApiToken.objects.exists()


def test_the_team_choice_is_among_the_persons_teams_only(world: World, other_world: World) -> None:
    text, fields = _page(world.client_for(world.member))
    assert f'value="{world.slug}"' in text
    assert f'value="{other_world.slug}"' not in text
    response = world.client_for(world.member).post(
        PAGE, {**fields, "team": other_world.slug, "scope": "read", "expires_days": "90"}
    )
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_the_list_shows_only_the_persons_tokens_with_their_state(world: World) -> None:
    member = Membership.objects.get(user=world.member, tenant=world.tenant)
    owner = Membership.objects.get(user=world.owner, tenant=world.tenant)
    live = api_tokens.token_create(membership=member, name="live one", scope="read").token
    expired = api_tokens.token_create(membership=member, name="old one", scope="read").token
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=1))
    theirs = api_tokens.token_create(membership=owner, name="owners one", scope="admin").token
    text = world.client_for(world.member).get(PAGE).content.decode()
    assert "live one" in text
    assert "old one" in text
    assert "Expired" in text
    assert "owners one" not in text
    assert theirs.hint not in text
    assert f"/account/tokens/{live.pk}/revoke/" in text
    assert f"/account/tokens/{expired.pk}/revoke/" not in text


def test_revoking_stops_the_token_and_another_persons_token_is_a_404(world: World) -> None:
    member = Membership.objects.get(user=world.member, tenant=world.tenant)
    created = api_tokens.token_create(membership=member, name="x", scope="read")
    assert created.secret
    url = f"/account/tokens/{created.token.pk}/revoke/"
    assert world.client_for(world.owner).post(url).status_code == 404
    assert _authenticates(created.secret) is not None
    assert world.client_for(world.member).get(url).status_code == 405
    response = world.client_for(world.member).post(url, follow=True)
    assert response.status_code == 200
    assert "is revoked" in response.content.decode()
    assert _authenticates(created.secret) is None
    assert "Revoked" in world.client_for(world.member).get(PAGE).content.decode()


def test_the_page_needs_a_signed_in_person(client: Client) -> None:
    response = client.get(PAGE)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert client.post("/account/tokens/1/revoke/").status_code == 302


def test_a_person_in_no_team_is_told_a_token_needs_one(make_world: Any) -> None:
    from django.contrib.auth.models import User

    loner = User.objects.create_user("loner", password="pw-for-tests")
    client = Client()
    client.force_login(loner)
    response = client.get(PAGE)
    assert response.status_code == 200
    assert "you are in none yet" in response.content.decode()
