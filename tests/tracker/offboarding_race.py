"""Run by test_offboarding_race_postgres.py in a process of its own, on PostgreSQL (row locks are real there).

Two threads, two connections: an invitation being accepted (a link, or a request by name) and the team being
offboarded (``offboarding_begin``: the transaction that locks the team's row, retires the slug, withdraws the
invitations and removes the memberships). Prints one JSON line.
Usage: python -m tests.tracker.offboarding_race <port>  (a PostgreSQL with an empty database ``tracker_race``)
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.tracker.postgres_race import start_django, thread

start_django()  # before anything of Django's models is imported

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402

from tracker.models import Membership, PersonalInvitation, Tenant  # noqa: E402
from tracker.services import offboarding, personal_invitations, team  # noqa: E402

WAIT = 2.0  # seconds a thread is given to finish when nothing holds it


def world(n: int, kind: str) -> tuple[Tenant, User, Callable[[], object]]:
    """A team with an owner, and the accept of a newcomer's invitation of ``kind`` (link or by name)."""
    tenant = Tenant.objects.create(slug=f"race-{n}", name=f"Race {n}")
    owner, newcomer = (User.objects.create_user(f"{who}{n}") for who in ("owner", "newcomer"))
    creator = Membership.objects.create(user=owner, tenant=tenant, role="owner")
    if kind == "link":
        _, token = team.invitation_create(membership=creator, role="member")
        link = team.invitation_open(tenant_slug=tenant.slug, token=token)
        return tenant, newcomer, lambda: team.invitation_accept(invitation=link, user=newcomer)
    asked = PersonalInvitation.objects.create(
        tenant=tenant, role="member", asked_for=newcomer.username, invitee=newcomer, created_by=owner
    )
    return tenant, newcomer, lambda: personal_invitations.personal_invitation_accept(invitation=asked, user=newcomer)


@contextmanager
def pausing_before_the_new_membership(checked: threading.Event, release: threading.Event) -> Iterator[None]:
    """The accept has made every check (and holds its locks); it waits here before inserting the membership."""
    manager = Membership.objects
    real = manager.create

    def create(**fields: Any) -> Membership:
        checked.set()
        release.wait(30)
        return real(**fields)

    manager.create = create  # type: ignore[method-assign]
    try:
        yield
    finally:
        manager.create = real  # type: ignore[method-assign]


def accept_first(n: int, kind: str) -> dict[str, object]:
    """The accept has checked everything; offboarding must wait for its commit and then remove the newcomer."""
    tenant, newcomer, accept = world(n, kind)
    checked, release = threading.Event(), threading.Event()
    out: dict[str, object] = {}
    with pausing_before_the_new_membership(checked, release):
        accepting = thread(accept, out, "accept")
        checked.wait(30)
        offboarding_thread = thread(lambda: offboarding.offboarding_begin(tenant.slug), out, "offboard")
        offboarding_thread.join(WAIT)
        out["offboarding_waited_for_the_accept"] = offboarding_thread.is_alive()
        release.set()
        accepting.join(30)
        offboarding_thread.join(30)
    out["newcomer_in_the_team"] = Membership.objects.filter(user=newcomer).exists()
    out["memberships_left"] = Membership.objects.filter(tenant=tenant).count()
    return out


def offboarding_first(n: int, kind: str) -> dict[str, object]:
    """Offboarding has begun and not committed yet; the accept waits for it, then is refused: the team closed."""
    tenant, newcomer, accept = world(n, kind)
    begun, release = threading.Event(), threading.Event()

    def offboard() -> None:
        with transaction.atomic():
            offboarding.offboarding_begin(tenant.slug)
            begun.set()
            release.wait(30)

    out: dict[str, object] = {}
    offboarding_thread = thread(offboard, out, "offboard")
    begun.wait(30)
    accepting = thread(accept, out, "accept")
    accepting.join(WAIT)
    out["accept_waited_for_the_offboarding"] = accepting.is_alive()
    release.set()
    offboarding_thread.join(30)
    accepting.join(30)
    out["newcomer_in_the_team"] = Membership.objects.filter(user=newcomer).exists()
    return out


if __name__ == "__main__":
    call_command("migrate", verbosity=0)
    results = {
        "by_name_accept_first": accept_first(1, "by name"),
        "link_accept_first": accept_first(2, "link"),
        "by_name_offboarding_first": offboarding_first(3, "by name"),
        "link_offboarding_first": offboarding_first(4, "link"),
    }
    sys.stdout.write(json.dumps(results) + "\n")
