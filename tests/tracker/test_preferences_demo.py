"""The demo's saved views and notification settings: alice's shared "Open bugs", bob's own view, carol's e-mail
off; a second seed changes nothing."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User

from ddbmodels import preferences
from tracker.demo.preferences import preferences_seed
from tracker.models import Membership, Tenant


def test_the_demo_views_and_carols_email_choice_are_seeded_once(db: None) -> None:
    tenant = Tenant.objects.create(slug=f"acme-{uuid.uuid4().hex[:8]}", name="Acme")  # DynamoDB Local is shared
    for name, role in (("alice", "owner"), ("bob", "member"), ("carol", "viewer")):
        Membership.objects.create(user=User.objects.create_user(name), tenant=tenant, role=role)

    first = preferences_seed(tenant.slug)
    again = preferences_seed(tenant.slug)

    shared = preferences.views_shared(tenant.slug)
    assert [(v.name, v.query, v.author) for v in shared] == [("Open bugs", "is:open label:bug", "alice")]
    assert [(v.name, v.query, v.shared) for v in preferences.views_mine(tenant.slug, "bob")] == [
        ("My recent work", "assignee:@me sort:updated", False)
    ]
    assert preferences.notify_settings(tenant.slug, consistent=True)["carol"] == preferences.NotifySetting(
        level="participating", email=False, version=1
    )
    assert first == ["alice's view “Open bugs” (shared)", "bob's view “My recent work”", "carol's e-mail off"]
    assert again == []
