"""``manage.py create_api_token USERNAME --team SLUG --scope … [--expires-days N] [--name]``: the token, last line."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import RequestFactory

from tests.tracker.conftest import World
from tracker.api.auth import TokenAuth
from tracker.models import ApiToken

pytestmark = pytest.mark.django_db


def _call(*args: str, **options: object) -> list[str]:
    out = io.StringIO()
    call_command("create_api_token", *args, stdout=out, **options)
    return out.getvalue().splitlines()


def test_the_last_line_is_a_token_that_authenticates(world: World) -> None:
    lines = _call(
        world.member.username, "--team", world.slug, "--scope", "write", "--expires-days", "7", "--name", "CI"
    )
    secret = lines[-1]
    assert secret.startswith("trk_")
    request = RequestFactory().get("/api/v1/x", headers={"Authorization": f"Bearer {secret}"})
    caller = TokenAuth()(request)
    assert caller is not None
    assert (caller.membership.user, caller.membership.tenant, caller.scope) == (world.member, world.tenant, "write")
    token = ApiToken.objects.get()
    assert token.name == "CI"
    assert timedelta(days=6, hours=23) < token.expires_at - token.created_at <= timedelta(days=7)
    assert token.hint in lines[0]
    assert secret not in "".join(lines[:-1])


@pytest.mark.parametrize(
    ("who", "args", "message"),
    [
        ("viewer", ["--scope", "write"], "not write"),
        ("member", ["--scope", "admin"], "not admin"),
        ("owner", ["--scope", "read", "--expires-days", "0"], "1 to 365 days"),
        ("owner", ["--scope", "read", "--expires-days", "366"], "1 to 365 days"),
        ("nobody", ["--scope", "read"], "not a member"),
    ],
)
def test_it_refuses_a_scope_above_the_role_a_bad_expiry_and_strangers(
    world: World, who: str, args: list[str], message: str
) -> None:
    username = getattr(world, who).username if who != "nobody" else "nobody"
    with pytest.raises(CommandError, match=message):
        _call(username, "--team", world.slug, *args)
    assert not ApiToken.objects.exists()


def test_another_team_is_refused(world: World, other_world: World) -> None:
    with pytest.raises(CommandError, match="not a member"):
        _call(world.owner.username, "--team", other_world.slug, "--scope", "read")


def test_a_deactivated_account_gets_no_token(world: World) -> None:
    world.member.is_active = False
    world.member.save()
    with pytest.raises(CommandError, match="deactivated"):
        _call(world.member.username, "--team", world.slug, "--scope", "read")
    assert not ApiToken.objects.exists()
