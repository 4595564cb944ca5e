"""The demo's saved views and notification settings (issue 21): in acme, alice's "Open bugs" shared with the
team, a personal view of bob's, and carol (a viewer) with e-mail off.

Idempotent: a view is saved only when its author has none of that name, carol's setting only while she has
never chosen one (a choice made since in the demo is left alone). Through the services, as a person would.
"""

from __future__ import annotations

from ddbmodels.preferences import ViewEdit
from tracker.models import Membership
from tracker.selectors.preferences import my_notify_setting, my_views
from tracker.services import preferences as services

TEAM = "acme"
VIEWS = (  # (author, name, query, project, shared)
    ("alice", "Open bugs", "is:open label:bug", None, True),
    ("bob", "My recent work", "assignee:@me sort:updated", None, False),
)


def preferences_seed(team: str = TEAM) -> list[str]:
    """Save the demo's views and carol's e-mail choice in ``team`` where missing; what was done, in words."""
    done: list[str] = []
    people = {
        m.user.get_username(): m for m in Membership.objects.filter(tenant__slug=team).select_related("user", "tenant")
    }
    for author, name, query, project, shared in VIEWS:
        membership = people.get(author)
        if membership is None:
            continue
        if any(view.name == name for view in my_views(tenant=team, username=author) or []):
            continue
        view, _ = services.view_save(membership=membership, view_id=None, name=name, query=query, project=project)
        if shared:
            services.view_change(membership=membership, view_id=view.id, edit=ViewEdit(view.version, shared=True))
        done.append(f"{author}'s view “{name}”{' (shared)' if shared else ''}")
    carol = people.get("carol")
    if carol is not None and my_notify_setting(membership=carol).version == 0:
        services.notify_set(membership=carol, level="participating", email=False, expected_version=0)
        done.append("carol's e-mail off")
    return done
