"""Run by test_invitation_race_postgres.py in a process of its own, on PostgreSQL (row locks are real there).

Two threads, two connections: an invitation being accepted and its creator being demoted. Prints one JSON line.
Usage: python -m tests.tracker.invitation_race <port>  (a PostgreSQL with an empty database ``tracker_race``)
"""

from __future__ import annotations

import json
import sys
import threading

from tests.tracker.postgres_race import start_django, thread

start_django()  # before anything of Django's models is imported

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402

from tracker.models import Invitation, Membership, Tenant  # noqa: E402
from tracker.services import team  # noqa: E402

WAIT = 2.0  # seconds a thread is given to finish when nothing holds it


def world(n: int) -> tuple[Membership, Membership, User, Invitation]:
    tenant = Tenant.objects.create(slug=f"race-{n}", name=f"Race {n}")
    first, second, newcomer = (User.objects.create_user(f"{who}{n}") for who in ("first", "second", "newcomer"))
    creator = Membership.objects.create(user=first, tenant=tenant, role="owner")
    other = Membership.objects.create(user=second, tenant=tenant, role="owner")
    _, token = team.invitation_create(membership=creator, role="owner")
    return creator, other, newcomer, team.invitation_open(tenant_slug=tenant.slug, token=token)


def accept_first() -> dict[str, object]:
    """The accept has checked the creator (and holds the lock); a demotion by any writer must wait for its commit."""
    creator, _, newcomer, invitation = world(1)
    checked, release = threading.Event(), threading.Event()
    real = team._refuse_without_right

    def check_then_pause(invitation: Invitation, *, lock: bool) -> None:
        real(invitation, lock=lock)
        if lock:
            checked.set()
            release.wait(30)

    team._refuse_without_right = check_then_pause  # type: ignore[assignment]
    out: dict[str, object] = {}
    accepting = thread(lambda: team.invitation_accept(invitation=invitation, user=newcomer), out, "accept")
    checked.wait(30)
    team._refuse_without_right = real  # type: ignore[assignment]
    # A bulk UPDATE: no receiver withdraws the invitation, so only the accept's lock can hold it back.
    demoting = thread(lambda: Membership.objects.filter(pk=creator.pk).update(role="member"), out, "demote")
    demoting.join(WAIT)
    out["demotion_waited_for_the_accept"] = demoting.is_alive()
    release.set()
    accepting.join(30)
    demoting.join(30)
    return out


def demotion_first() -> dict[str, object]:
    """The demotion (the team page's) has not committed yet; the accept waits for it, then is refused."""
    creator, other, newcomer, invitation = world(2)
    demoted, release = threading.Event(), threading.Event()

    def demote() -> None:
        with transaction.atomic():
            team.team_role_change(membership=other, target=creator, role="member")
            demoted.set()
            release.wait(30)

    out: dict[str, object] = {}
    demoting = thread(demote, out, "demote")
    demoted.wait(30)
    accepting = thread(lambda: team.invitation_accept(invitation=invitation, user=newcomer), out, "accept")
    accepting.join(WAIT)
    out["accept_waited_for_the_demotion"] = accepting.is_alive()
    release.set()
    demoting.join(30)
    accepting.join(30)
    out["newcomer_in_the_team"] = Membership.objects.filter(user=newcomer).exists()
    return out


if __name__ == "__main__":
    call_command("migrate", verbosity=0)
    sys.stdout.write(json.dumps({"accept_first": accept_first(), "demotion_first": demotion_first()}) + "\n")
