"""Owners register, edit, disable and delete webhook endpoints through the services the page and the API share:
once per request key, at most ten, public addresses only, known events only, on the version read; the team's
cached list follows every change; the delivery log's cursors are bound to their endpoint."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidInput, InvalidTransition, KeyReused
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.conftest import World
from tracker.exceptions import BadCursor
from tracker.models import Membership
from tracker.selectors import webhooks as selectors
from tracker.services.webhooks import endpoints as service

URL = "http://127.0.0.1:9/hook"  # the test settings' WEBHOOK_ALLOWED_NETWORKS hold 127.0.0.1/32


def membership(world: World, role: str = "owner") -> Membership:
    user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
    return Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)


def register(world: World, key: str = "k1", **fields: object) -> ddb_webhooks.EndpointItem:
    endpoint, created = service.webhook_create(
        membership=membership(world),
        url=str(fields.get("url", URL)),
        events=list(fields.get("events", ["issue.created"])),  # type: ignore[call-overload]
        description=str(fields.get("description", "")),
        key=key,
    )
    assert created
    return endpoint


def test_an_owner_registers_an_endpoint_once_per_key_with_a_secret_and_the_team_list_shows_it(world: World) -> None:
    assert selectors.team_endpoints(world.slug) == []  # cached empty before the registration

    endpoint = register(world, events=["comment.created", "issue.created"], description="  CI   bot ")
    again, created = service.webhook_create(
        membership=membership(world),
        url=URL,
        events=["issue.created", "comment.created"],
        description="CI bot",
        key="k1",
    )

    assert endpoint.secret.startswith("whsec_")
    assert len(endpoint.secret) == len("whsec_") + 44
    assert not created
    assert again == endpoint
    assert [e.id for e in selectors.team_endpoints(world.slug)] == [endpoint.id]
    assert selectors.team_endpoints(world.slug)[0].secret == ""  # no secret in the cache


def test_an_api_request_sent_again_is_told_from_another_one_under_its_key_by_its_fingerprint(world: World) -> None:
    first, _ = service.webhook_create(
        membership=membership(world), url=URL, events=["issue.created"], key="k1", fingerprint="f1"
    )
    edited = service.webhook_update(
        membership=membership(world), endpoint_id=first.id, expected_version=1, events=["issue.deleted"]
    )

    again, created = service.webhook_create(
        membership=membership(world), url=URL, events=["issue.created"], key="k1", fingerprint="f1"
    )
    with pytest.raises(KeyReused):
        service.webhook_create(
            membership=membership(world), url=URL, events=["issue.created"], key="k1", fingerprint="f2"
        )

    assert not created
    assert again == edited  # as it is now: the API's replay renders its first answer from the request


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_only_owners_manage_webhooks(world: World, role: str) -> None:
    endpoint = register(world)

    with pytest.raises(PermissionDenied):
        service.webhook_create(membership=membership(world, role), url=URL, events=["issue.created"], key="k2")
    with pytest.raises(PermissionDenied):
        selectors.endpoint_access(membership(world, role), endpoint.id)
    with pytest.raises(PermissionDenied):
        service.webhook_delete(membership=membership(world, role), endpoint_id=endpoint.id, expected_version=1)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://10.0.0.1/hook", "public addresses only"),
        ("http://169.254.169.254/latest", "public addresses only"),
        ("ftp://127.0.0.1/hook", "https://"),
        ("http://user:pw@127.0.0.1/hook", "password"),
    ],
)
def test_a_url_that_is_not_a_public_http_address_is_refused_and_nothing_is_registered(
    world: World, url: str, words: str
) -> None:
    with pytest.raises(InvalidInput, match=words):
        service.webhook_create(membership=membership(world), url=url, events=["issue.created"], key="k1")

    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []


def test_unknown_or_no_events_are_refused(world: World) -> None:
    with pytest.raises(InvalidInput, match=r"Unknown events: issue\.exploded"):
        service.webhook_create(membership=membership(world), url=URL, events=["issue.exploded"], key="k1")
    with pytest.raises(InvalidInput, match="at least one"):
        service.webhook_create(membership=membership(world), url=URL, events=[], key="k1")


def test_a_team_has_at_most_ten_endpoints_and_the_tenth_may_still_be_sent_again(world: World) -> None:
    for n in range(ddb_webhooks.ENDPOINTS_MAX):
        register(world, f"k{n}")

    with pytest.raises(InvalidInput, match="at most 10 webhooks"):
        service.webhook_create(membership=membership(world), url=URL, events=["issue.created"], key="k10")
    _, created = service.webhook_create(membership=membership(world), url=URL, events=["issue.created"], key="k9")

    assert not created
    assert len(ddb_webhooks.endpoints_of(world.slug, consistent=True)) == ddb_webhooks.ENDPOINTS_MAX


def test_edits_go_on_the_version_read_disable_says_who_and_the_list_follows(world: World) -> None:
    endpoint = register(world)
    selectors.team_endpoints(world.slug)  # cached

    edited = service.webhook_update(
        membership=membership(world), endpoint_id=endpoint.id, expected_version=1, events=["issue.deleted"]
    )
    off = service.webhook_update(
        membership=membership(world), endpoint_id=endpoint.id, expected_version=2, active=False
    )
    with pytest.raises(ChangedSinceRead):
        service.webhook_update(membership=membership(world), endpoint_id=endpoint.id, expected_version=2, url=URL)

    assert edited.events == ("issue.deleted",)
    assert (off.active, off.disabled_why) == (False, f"Disabled by {world.owner.username}.")
    assert selectors.team_endpoints(world.slug)[0].status == ddb_webhooks.DISABLED


def test_a_deleted_endpoint_leaves_the_list_is_404_and_its_key_registers_nothing_again(world: World) -> None:
    endpoint = register(world)

    service.webhook_delete(membership=membership(world), endpoint_id=endpoint.id, expected_version=1)

    assert selectors.team_endpoints(world.slug) == []
    with pytest.raises(Http404):
        selectors.endpoint_access(membership(world), endpoint.id)
    with pytest.raises(AlreadyExists, match="deleted since"):
        service.webhook_create(membership=membership(world), url=URL, events=["issue.created"], key="k1")


def test_another_teams_endpoint_and_a_malformed_id_are_404(world: World, other_world: World) -> None:
    theirs = register(other_world)

    with pytest.raises(Http404):
        selectors.endpoint_access(membership(world), theirs.id)
    with pytest.raises(Http404):
        selectors.endpoint_access(membership(world), "../../x")


def test_redeliver_refuses_a_disabled_endpoint_and_a_pending_delivery_and_queues_the_one_it_puts_back(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[tuple[str, str, str]] = []

    def send_later(tenant: str, endpoint_id: str, delivery_id: str) -> bool:
        queued.append((tenant, endpoint_id, delivery_id))
        return True

    monkeypatch.setattr(service, "send_later", send_later)
    endpoint = register(world)
    put_delivery(world.slug, endpoint.id, event_key(1), pending=True)
    put_delivery(world.slug, endpoint.id, event_key(2), pending=False)
    delivery_id = ddb_webhooks.delivery_id_of(event_key(2))

    with pytest.raises(InvalidTransition, match="being sent"):
        service.webhook_redeliver(
            membership=membership(world), endpoint=endpoint, delivery_id=ddb_webhooks.delivery_id_of(event_key(1))
        )
    again = service.webhook_redeliver(membership=membership(world), endpoint=endpoint, delivery_id=delivery_id)
    off = service.webhook_update(
        membership=membership(world), endpoint_id=endpoint.id, expected_version=1, active=False
    )

    assert again.status == ddb_webhooks.PENDING
    assert queued == [(world.slug, endpoint.id, delivery_id)]
    with pytest.raises(InvalidTransition, match="disabled"):
        service.webhook_redeliver(membership=membership(world), endpoint=off, delivery_id=delivery_id)


def test_the_log_pages_with_signed_cursors_bound_to_their_endpoint(world: World) -> None:
    endpoint, other = register(world, "k1"), register(world, "k2")
    for n in range(1, 4):
        put_delivery(world.slug, endpoint.id, event_key(n), pending=False)

    first = selectors.delivery_log_page(endpoint, size=2)
    second = selectors.delivery_log_page(endpoint, cursor=first.next_cursor, size=2)

    assert [d.event_key for d in first.items] == [event_key(3), event_key(2)]
    assert [d.event_key for d in second.items] == [event_key(1)]
    assert second.next_cursor is None
    with pytest.raises(BadCursor):
        selectors.delivery_log_page(other, cursor=first.next_cursor)
    with pytest.raises(BadCursor):
        selectors.delivery_log_page(endpoint, cursor="junk")
    assert selectors.delivery_access(endpoint, first.items[0].id) == first.items[0]
    with pytest.raises(Http404):
        selectors.delivery_access(other, first.items[0].id)
