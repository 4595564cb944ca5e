"""The owners' webhooks page: register (the secret shown once, the form sent twice registers one), a refused URL
said on its field, edit on the version shown, disable/enable, delete, the delivery log with Redeliver; anybody but
an owner gets a 404."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from ddbmodels import webhooks as ddb_webhooks
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.conftest import World

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hook"


def page(world: World) -> str:
    return world.url("settings/webhooks/")


def register_form(client: Client, world: World) -> dict[str, str]:
    shown = client.get(page(world)).content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', shown)
    assert key is not None
    return {"idempotency_key": key.group(1), "url": URL, "events": "issue.created", "description": "CI"}


@pytest.mark.parametrize("role", ["owner", "member", "viewer"])
def test_the_team_page_leads_owners_alone_to_the_webhooks(world: World, role: str) -> None:
    team = world.client_for(getattr(world, role)).get(world.url("team/")).content.decode()

    assert (f'href="{page(world)}"' in team) == (role == "owner")


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_only_owners_see_the_page(world: World, role: str) -> None:
    client = world.client_for(getattr(world, role))

    assert client.get(page(world)).status_code == 404
    assert client.post(page(world), {"url": URL, "events": "issue.created"}).status_code == 404
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []


def test_an_owner_registers_a_webhook_sees_its_secret_once_and_the_same_form_again_registers_nothing(
    world: World,
) -> None:
    client = world.client_for(world.owner)
    form = register_form(client, world)

    first = client.post(page(world), form)
    again = client.post(page(world), form)
    later = client.get(page(world))

    (endpoint,) = ddb_webhooks.endpoints_of(world.slug, consistent=True)
    assert first.status_code == 200
    assert endpoint.secret in first.content.decode()
    assert "nothing was registered twice" in again.content.decode()
    assert endpoint.secret not in later.content.decode()
    assert URL in later.content.decode()


def test_a_private_address_is_refused_on_its_field_and_nothing_is_registered(world: World) -> None:
    client = world.client_for(world.owner)
    form = {**register_form(client, world), "url": "http://192.168.1.10/hook"}

    answer = client.post(page(world), form)

    assert answer.status_code == 400
    assert "public addresses only" in answer.content.decode()
    assert 'value="http://192.168.1.10/hook"' in answer.content.decode()  # what was typed is kept
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []


def test_edit_disable_enable_and_delete_go_on_the_version_shown(world: World) -> None:
    client = world.client_for(world.owner)
    client.post(page(world), register_form(client, world))
    (endpoint,) = ddb_webhooks.endpoints_of(world.slug, consistent=True)
    detail = page(world) + f"{endpoint.id}/"

    edited = client.post(detail, {"url": URL, "events": ["issue.created", "issue.deleted"], "version": "1"})
    stale = client.post(detail, {"url": URL, "events": "issue.created", "description": "late", "version": "1"})
    client.post(detail + "switch/", {"action": "disable", "version": "2"})
    off = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True)
    client.post(detail + "switch/", {"action": "enable", "version": "3"})
    stale_delete = client.post(detail + "delete/", {"version": "3"})
    deleted = client.post(detail + "delete/", {"version": "4"})

    assert edited.status_code == 302
    assert stale.status_code == 400
    assert "changed since you opened it" in stale.content.decode()
    assert off is not None
    assert (off.status, off.events) == (ddb_webhooks.DISABLED, ("issue.created", "issue.deleted"))
    assert stale_delete.status_code == 302
    assert deleted.status_code == 302
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []
    assert client.get(detail).status_code == 404


def test_the_log_shows_each_delivery_and_redeliver_puts_a_finished_one_back(world: World) -> None:
    client = world.client_for(world.owner)
    client.post(page(world), register_form(client, world))
    (endpoint,) = ddb_webhooks.endpoints_of(world.slug, consistent=True)
    put_delivery(world.slug, endpoint.id, event_key(1), pending=False)
    detail = page(world) + f"{endpoint.id}/"

    shown = client.get(detail).content.decode()
    sent = client.post(detail + f"deliveries/{ddb_webhooks.delivery_id_of(event_key(1))}/redeliver/", follow=True)

    assert ddb_webhooks.message_id(endpoint.id, event_key(1)) in shown
    assert "Delivered" in shown
    assert "204 in 12 ms" in shown
    assert "Redeliver" in shown
    assert "<summary>Body sent</summary><pre>{}</pre>" in shown  # the JSON body as sent
    assert "Sending it again within a minute" in sent.content.decode()
    again = ddb_webhooks.delivery_get(world.slug, endpoint.id, event_key(1), consistent=True)
    assert again is not None
    assert again.status == ddb_webhooks.PENDING


def test_another_teams_webhook_is_a_404(world: World, other_world: World) -> None:
    theirs = other_world.client_for(other_world.owner)
    theirs.post(page(other_world), register_form(theirs, other_world))
    (endpoint,) = ddb_webhooks.endpoints_of(other_world.slug, consistent=True)

    assert world.client_for(world.owner).get(page(world) + f"{endpoint.id}/").status_code == 404
