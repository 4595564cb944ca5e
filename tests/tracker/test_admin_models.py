"""The relational side in the admin: tenants with their memberships, through the usual ModelAdmins."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.test import Client

from tests.tracker.conftest import World
from tracker.admin_site import TrackerAdminSite
from tracker.models import Membership, Tenant


def superuser_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests"))
    return client


def test_tenants_and_memberships_are_registered_on_the_one_admin_site() -> None:
    assert isinstance(admin.site._wrapped, TrackerAdminSite)  # type: ignore[attr-defined]
    assert admin.site.is_registered(Tenant)
    assert admin.site.is_registered(Membership)


def test_the_admin_index_lists_tenants_and_the_changelist_shows_them(world: World) -> None:
    client = superuser_client()
    index = client.get("/admin/").content.decode()
    assert 'href="/admin/tracker/tenant/"' in index
    changelist = client.get("/admin/tracker/tenant/")
    assert changelist.status_code == 200
    assert world.tenant.name in changelist.content.decode()


def test_a_tenants_slug_is_read_only_once_created_and_its_members_are_inline(world: World) -> None:
    client = superuser_client()
    slug = world.tenant.slug
    page = client.get(f"/admin/tracker/tenant/{world.tenant.pk}/change/").content.decode()
    assert 'name="slug"' not in page  # every DynamoDB key of the tenant starts with it
    assert world.member.username in page
    response = client.post(
        f"/admin/tracker/tenant/{world.tenant.pk}/change/",
        {
            "name": "Renamed",
            "slug": "hijacked",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 302  # saved…
    world.tenant.refresh_from_db()
    assert (world.tenant.name, world.tenant.slug) == ("Renamed", slug)  # …but not the slug


def test_staff_with_only_view_permission_see_tenants_but_cannot_change_them(world: World) -> None:
    viewer = User.objects.create_user("looker", password="pw-for-tests", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_tenant"))
    client = Client()
    client.force_login(viewer)
    url = f"/admin/tracker/tenant/{world.tenant.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert client.post(url, {"name": "Changed by a viewer"}).status_code == 403
    world.tenant.refresh_from_db()
    assert world.tenant.name != "Changed by a viewer"
