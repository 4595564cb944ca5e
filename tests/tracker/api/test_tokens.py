"""API tokens: their format, hashing, scopes within roles, expiry, revocation, and who the caller is."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.test import RequestFactory
from django.utils import timezone

from ddbmodels.core.errors import InvalidInput, NotFound
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.api.access import require_scope, team_access
from tracker.api.auth import ApiPrincipal, TokenAuth
from tracker.models import ApiToken, Membership
from tracker.selectors.api_tokens import user_tokens
from tracker.services import api_tokens

pytestmark = pytest.mark.django_db


def _membership(world: World, role: str) -> Membership:
    user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
    return Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)


def _caller(secret: str) -> ApiPrincipal | None:
    request = RequestFactory().get("/api/v1/anything", headers={"Authorization": f"Bearer {secret}"})
    return TokenAuth()(request)


def _bumped(secret: str) -> str:
    """The same token with one character of its random part changed (its checksum no longer matches)."""
    body = list(secret)
    body[10] = "a" if body[10] != "a" else "b"
    return "".join(body)


# ------------------------------------------------------------------- the format


def test_a_token_has_the_prefix_40_characters_and_a_checksum_scanners_can_check() -> None:
    secret = api_tokens.new_secret()
    assert secret.startswith("trk_")
    assert len(secret) == 40
    assert api_tokens.well_formed(secret)
    assert not api_tokens.well_formed(_bumped(secret))  # one character off: the CRC32 no longer matches
    assert not api_tokens.well_formed(secret[:-1])
    assert not api_tokens.well_formed("ghp_" + secret[4:])
    assert not api_tokens.well_formed(secret[:-6] + "~" * 6)
    assert len({api_tokens.new_secret() for _ in range(50)}) == 50


def test_only_the_hash_is_stored_and_the_secret_is_shown_once(world: World) -> None:
    membership = _membership(world, "member")
    created = api_tokens.token_create(membership=membership, name="CI", scope="write", request_key="k" * 32)
    assert created.secret is not None
    row = ApiToken.objects.get(pk=created.token.pk)
    assert row.key_hash == hashlib.sha256(created.secret.encode()).hexdigest()
    stored = " ".join(str(value) for value in row.__dict__.values())
    assert created.secret not in stored
    assert created.secret[4:-4] not in stored
    assert row.hint == f"trk_…{created.secret[-4:]}"
    assert (row.name, row.scope) == ("CI", "write")
    assert timedelta(days=89, hours=23) < row.expires_at - row.created_at <= timedelta(days=90)
    again = api_tokens.token_create(membership=membership, name="CI", scope="write", request_key="k" * 32)
    assert (again.token.pk, again.secret) == (row.pk, None)  # the same form again: nothing made, nothing shown
    assert ApiToken.objects.count() == 1


@pytest.mark.parametrize(("role", "scopes"), [("viewer", ["read"]), ("member", ["read", "write"]), ("owner", None)])
def test_a_token_scope_is_at_most_the_role(world: World, role: str, scopes: list[str] | None) -> None:
    membership = _membership(world, role)
    allowed = scopes or ["read", "write", "admin"]
    assert api_tokens.scopes_for(membership) == allowed
    for scope in ["read", "write", "admin"]:
        if scope in allowed:
            assert api_tokens.token_create(membership=membership, name="", scope=scope).secret
        else:
            with pytest.raises(PermissionDenied, match=f"not {scope}"):
                api_tokens.token_create(membership=membership, name="", scope=scope)
    assert ApiToken.objects.count() == len(allowed)


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"expires_days": 0}, "expires_days"), ({"expires_days": 366}, "expires_days"), ({"scope": "root"}, "scope")],
)
def test_bad_input_makes_no_token(world: World, extra: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        api_tokens.token_create(membership=_membership(world, "owner"), **{"name": "x", "scope": "read", **extra})
    assert refused.value.context["field"] == field
    assert not ApiToken.objects.exists()


# ------------------------------------------------------------------- authentication


def test_junk_and_bad_checksums_are_refused_without_a_query(world: World, django_assert_num_queries: Any) -> None:
    secret = api_tokens.token_create(membership=_membership(world, "member"), name="", scope="read").secret
    assert secret is not None
    with django_assert_num_queries(0):
        for junk in [_bumped(secret), "trk_short", "x" * 40, "", secret + "x"]:
            assert _caller(junk) is None


def test_a_live_token_is_one_query_and_last_used_is_written_once_a_minute(
    world: World, django_assert_num_queries: Any
) -> None:
    created = api_tokens.token_create(membership=_membership(world, "member"), name="", scope="write")
    assert created.secret is not None
    with django_assert_num_queries(2):  # the token with its membership, team and person; last used
        caller = _caller(created.secret)
    assert caller is not None
    assert (caller.token_id, caller.hint, caller.scope) == (created.token.pk, created.token.hint, "write")
    assert (caller.membership.tenant.slug, caller.membership.user.username) == (world.slug, world.member.username)
    first = ApiToken.objects.get(pk=created.token.pk).last_used_at
    assert first is not None
    with django_assert_num_queries(1):  # used again within the minute: no write
        assert _caller(created.secret) is not None
    ApiToken.objects.filter(pk=created.token.pk).update(last_used_at=first - timedelta(seconds=61))
    assert _caller(created.secret) is not None
    later = ApiToken.objects.get(pk=created.token.pk).last_used_at
    assert later is not None
    assert later >= first


def test_a_well_formed_unknown_token_is_refused_after_one_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(1):
        assert _caller(api_tokens.new_secret()) is None


def test_expired_revoked_and_inactive_tokens_are_refused(world: World) -> None:
    membership = _membership(world, "member")
    expired, revoked, inactive = (
        api_tokens.token_create(membership=membership, name=name, scope="read") for name in ["e", "r", "i"]
    )
    ApiToken.objects.filter(pk=expired.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api_tokens.token_revoke(user=world.member, token_id=revoked.token.pk).revoked_at is not None
    assert expired.secret
    assert revoked.secret
    assert inactive.secret
    assert _caller(inactive.secret) is not None
    assert _caller(expired.secret) is None
    assert _caller(revoked.secret) is None
    User.objects.filter(pk=world.member.pk).update(is_active=False)
    assert _caller(inactive.secret) is None


def test_only_its_person_revokes_a_token_and_revoking_again_changes_nothing(world: World) -> None:
    created = api_tokens.token_create(membership=_membership(world, "member"), name="", scope="read")
    with pytest.raises(NotFound):
        api_tokens.token_revoke(user=world.owner, token_id=created.token.pk)
    assert ApiToken.objects.get(pk=created.token.pk).revoked_at is None
    first = api_tokens.token_revoke(user=world.member, token_id=created.token.pk).revoked_at
    assert api_tokens.token_revoke(user=world.member, token_id=created.token.pk).revoked_at == first


def test_a_person_lists_only_their_own_tokens(world: World, other_world: World) -> None:
    mine = api_tokens.token_create(membership=_membership(world, "owner"), name="a", scope="admin").token
    api_tokens.token_create(membership=_membership(world, "member"), name="b", scope="read")
    theirs = Membership.objects.create(user=world.owner, tenant=other_world.tenant, role="viewer")
    other = api_tokens.token_create(membership=theirs, name="c", scope="read").token
    assert {token.pk for token in user_tokens(user=world.owner)} == {mine.pk, other.pk}


def test_tokens_leave_with_their_membership(world: World) -> None:
    membership = _membership(world, "member")
    created = api_tokens.token_create(membership=membership, name="", scope="write")
    membership.delete()
    assert not ApiToken.objects.exists()
    assert created.secret
    assert _caller(created.secret) is None


# ------------------------------------------------------------------- the team and the scope of a call


def _request(secret: str) -> Any:
    request = RequestFactory().get("/api/v1/x")
    caller = _caller(secret)
    assert caller is not None
    request.auth = caller  # type: ignore[attr-defined]
    return request


def test_another_team_is_a_404_as_on_the_pages(world: World, other_world: World, api_client: ApiClientFactory) -> None:
    request = _request(api_client(world, role="owner", scope="admin").secret)
    assert team_access(request, world.slug).tenant == world.tenant
    for slug in [other_world.slug, "no-such-team"]:
        with pytest.raises(Http404):
            team_access(request, slug)


def test_a_call_needs_the_scope_and_the_role_as_it_is_now(world: World, api_client: ApiClientFactory) -> None:
    reader = _request(api_client(world, role="member", scope="read").secret)
    require_scope(reader, "read")
    with pytest.raises(PermissionDenied, match="write scope"):
        require_scope(reader, "write")
    owner = api_client(world, role="owner", scope="admin")
    require_scope(_request(owner.secret), "admin")
    Membership.objects.filter(pk=owner.membership.pk).update(role="member")  # the role lowered later
    require_scope(_request(owner.secret), "write")
    with pytest.raises(PermissionDenied, match="owner role"):
        require_scope(_request(owner.secret), "admin")
    Membership.objects.filter(pk=owner.membership.pk).update(role="viewer")
    with pytest.raises(PermissionDenied, match="member role"):
        require_scope(_request(owner.secret), "write")


def test_offboarding_deletes_the_teams_tokens_with_its_memberships_and_counts_each(
    world: World, other_world: World, api_client: ApiClientFactory
) -> None:
    from tracker.services.offboarding import offboarding_begin

    gone = [api_client(world, role=role, scope="read") for role in ("owner", "viewer")]
    stays = api_client(other_world, role="member", scope="write")
    _, closed = offboarding_begin(world.slug)
    assert (closed["memberships_removed"], closed["api_tokens_deleted"]) == (3, 2)  # not 5 memberships
    assert [_caller(client.secret) for client in gone] == [None, None]
    assert list(ApiToken.objects.all()) == [stays.token]


def test_a_token_for_a_membership_removed_meanwhile_is_refused_not_a_crash(world: World) -> None:
    """The page read the membership, then an owner removed the person (or offboarding began): no token, no 500."""
    membership = _membership(world, "member")
    Membership.objects.filter(pk=membership.pk).delete()
    with pytest.raises(NotFound, match="no longer in"):
        api_tokens.token_create(membership=membership, name="", scope="read")
    assert not ApiToken.objects.exists()
