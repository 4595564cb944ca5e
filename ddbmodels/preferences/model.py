"""The preferences table: each person's saved views of a team and the team's notification settings.

Shaped like the labels registry: a team partition that names everything, and one partition per person.

    team partition     PK pk = "<team>#t"
        shared view        SK s = "v#<view id>"     a copy of the author's view while it is shared
        person             SK s = "u#<username>"    written once, before a person's first view (the registry
                                                    offboarding reads to find each person's partition)
        notifications      SK s = "n"               m = {username: {l: participating|watching|off, e: bool, v}},
                                                    g generation: + 1 on every change (the first one sets it
                                                    to the time in ms × 1000), so a cache keeps the newest
    person partition   PK pk = "<team>#u#<username>"
        view               SK s = "v#<view id>"     every view of the person, shared or not

    a view: nm name (≤ 80), q the query text as the list's search box takes it (``tracker.issue_query``
            parses it when the view is opened), pj the project key or absent (team-wide), by the author,
            sh shared (bool), v version (1 on create, + 1 on each change), ca / ua created / updated at

``#t`` / ``#u#`` keep a person called ``t`` apart from the team. A view's id is the idempotency key of
the form that saved it (a ULID): the create is a PutItem ``attribute_not_exists``, so a form sent twice
saves one view, whatever happened to it since (shared, renamed) — except after it was deleted: a form
sent again after that saves it again.

Reads:
    the header menu     Query pk = "<team>#u#<me>" + Query pk = "<team>#t", s BETWEEN "v#" AND "v#~", ≤ 120
                        (eventually consistent): 0.5 RCU per started 4 KB, one request each (≈ 150 B a
                        typical view: 0.5 RCU up to ≈ 25 views, ≤ 2 RCU for the 100 a person or team may
                        have; ≤ 10 RCU for 100 views at the longest name and query), 2 requests; the site
                        caches both per team (the shared list) and per person. A person keeps ≤ 100 views
                        (VIEWS_MAX), a team shares ≤ 100 (SHARED_MAX): the save or share past it is refused
                        on the cached list's count, so only saves racing each other pass it, and the read's
                        20 more (VIEWS_READ) still show those
    open a view         GetItem of the person's item, else of the team's copy: 0.5 RCU each
    notifications       GetItem pk = "<team>#t", s = "n": 0.5 RCU (≈ 40 B a person: 100 people ≈ 4 KB);
                        the fan-out's read is consistent (1 RCU) and cached by the site under its generation
Writes:
    save a view         (the person's registry item, once: GetItem 0.5 RCU, then PutItem 1 WCU the first time)
                        + PutItem ``attribute_not_exists(pk)``: 1 WCU
    an owner unshares   consistent GetItem of the team's copy and of the author's item (2 RCU) +
    a teammate's view   TransactWriteItems: the copy deleted and the author's item unshared, both on the
                        version (4 WCU); when the author's item is gone, the copy alone (1 WCU). A person
                        leaving the team: the same for each view of theirs the shared list holds
    rename, share,      TransactWriteItems: the person's item conditioned on ``v`` + the team's copy put or
    unshare, delete     deleted (share, unshare, rename or delete of a shared view): 4 WCU; an unshared
                        view's rename or delete is one conditional write, 1 WCU. A stale version: ChangedSinceRead
    a person's setting  (the first one of the team: PutItem ``attribute_not_exists``, 1 WCU) + UpdateItem
                        ``SET m.#u = :p ADD g :one`` conditioned on the person's ``v`` (absent for version 0),
                        ``ALL_NEW`` (the site caches what it returns): 1 WCU per KB of the whole item (≈ 1 WCU
                        up to ≈ 25 people, 4 WCU for 100)

No hot key: the team partition takes only shared-view and settings writes (person-paced: a click on a
settings page) and reads that the site caches (the menu's shared list, the settings per fan-out), far
below a partition's 1,000 WCU / 3,000 RCU a second. Offboarding: Query the team partition (consistent),
then each person's partition it names (``team.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pynamodb.attributes import UnicodeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register

KEY_ATTRIBUTES = ("pk", "s")
VIEW_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")  # a ULID: the saving form's idempotency key
VIEW_PREFIX = "v#"
PERSON_PREFIX = "u#"
NOTIFY_SORT = "n"
NAME_MAX = 80
QUERY_MAX = 500
VIEWS_MAX = 100  # a person's views in a team: the 101st save is refused (services.preferences)
SHARED_MAX = 100  # a team's shared views: sharing a 101st is refused
VIEWS_READ = 120  # what the menu reads of a partition: the limit and room for saves racing past it (never 20)
LEVELS = ("participating", "watching", "off")
DEFAULT_LEVEL = "participating"


@register("preferences")
class PreferenceItem(Model):
    """A view, a person's registry item or the team's notification settings (raw attributes: see the docstring)."""

    class Meta:
        table_name = "preferences"  # the base name: register() prefixes it

    key = UnicodeAttribute(hash_key=True, attr_name="pk")
    sort = UnicodeAttribute(range_key=True, attr_name="s")


@dataclass(frozen=True)
class SavedView:
    """A saved view as pages see it."""

    id: str
    name: str
    query: str
    project: str | None
    author: str
    shared: bool
    version: int
    created_at: datetime | None = None


@dataclass(frozen=True)
class ViewEdit:
    """One change to one's own view, on the version the page showed: a new name, shared or not, or deleted."""

    expected_version: int
    name: str | None = None  # None: kept
    shared: bool | None = None  # None: kept
    delete: bool = False


@dataclass(frozen=True)
class NotifySetting:
    """One person's notification setting in a team (the default when never set: version 0)."""

    level: str = DEFAULT_LEVEL
    email: bool = True
    version: int = 0


@dataclass(frozen=True)
class TeamNotify:
    """A team's notification settings item: username → setting, and its generation (+ 1 on each change).

    Generation 0: no setting was ever saved. The first save sets it to the time in ms × 1000, so an
    item deleted with its team and made again later starts above any generation the old one reached.
    """

    people: dict[str, NotifySetting]
    generation: int = 0


def generation_start(now_s: float) -> int:
    """The generation a team's settings item is created with (then + 1 a change): the time in ms × 1000."""
    return int(now_s * 1000) * 1000


def team_key(tenant: str) -> str:
    """The team partition: shared views, the person registry, the notification settings."""
    return f"{tenant}#t"


def person_key(tenant: str, username: str) -> str:
    """A person's partition in a team: every view they saved."""
    return f"{tenant}#u#{username}"


def view_sort(view_id: str) -> str:
    return f"{VIEW_PREFIX}{view_id}"


def person_sort(username: str) -> str:
    return f"{PERSON_PREFIX}{username}"
