"""The inbox table: who watches each issue, and each person's notifications with an unread count.

One table, three kinds of item, told apart by their sort key:

    watcher       PK pk = "<tenant>#<PROJECT>#<number>"  (the issue's stream, as in the events table)
                  SK sk = "w#<username>"                  + tn = tenant
    inbox head    PK pk = "<tenant>#<username>"           SK sk = "#"
                  tn = tenant, c = unread count (ADD), rt = read-through: notifications whose sort
                  key is ≤ rt were read by "Mark all read"
    notification  PK pk = "<tenant>#<username>"           SK sk = "n#<event sort key>"
                  ref ("WEB-12"), pj (project key), n (number), ac (actor), k (kind), tx (a short
                  plain-words text), rd (read flag), x (expiry: TTL, ``RETENTION`` after the event)

    mail window   PK pk = "<tenant>#<username>"           SK sk = "m#<PROJECT>#<number>"
                  ws (when the window opened, a time key), wo (the token of the call that opened
                  it), nk (string set: the event keys of the notifications it gathered), ct / ca
                  (the digest's claim: its token, when), x (expiry: TTL, a day after it opened)

    GSI by_tenant   PK tn, no sort key, KEYS_ONLY — sparse: only watchers and inbox heads carry tn

Usernames have no '#' (Django allows letters, digits and @.+-_), so a person's key
``<tenant>#<user>`` never meets an issue's ``<tenant>#<PROJECT>#<n>``.

Watchers are the issue's own item collection ("subscribers" of The DynamoDB Book's GitHub model):
watch and unwatch are an idempotent PutItem / DeleteItem (1 WCU + 1 WCU for the index entry);
listing them is one Query of the collection — 0.5 RCU per 4 KB, a watcher item is ~60 bytes,
and an issue's watchers are at most the team's members, so one Query of ≤ 0.5 RCU for any team
under ~60 people.

A person's inbox is one item collection, newest first by the event's time key: a page is one
Query ``begins_with(sk, "n#")`` descending, ``Limit 26`` — ≈ 0.5 RCU per 4 KB (a notification is
~250 bytes: a page of 25 ≈ 1 RCU). The notification's sort key is the event's own sort key, so
delivering the same event twice writes the same key: the Put is conditioned on
``attribute_not_exists`` and counts once.

Unread count at index cost: the inbox head holds it (``c``). A notification and its ``ADD c 1``
are written in one TransactWriteItems (up to 50 recipients a transaction): a retried fan-out is
cancelled on the notifications that exist and adds nothing — 4 WCU per recipient (two writes,
each at the transactional rate), plus 2 once for a new head's index entry. The header reads the
count with one GetItem of the head — 0.5 RCU (and the web caches it a few seconds). "Mark all
read" is one UpdateItem of the head (``c = 0``, ``rt`` = now, ``UPDATED_OLD``: how many were
unread): 1 WCU however many there were; opening one is a TransactWriteItems (``rd``, ``ADD c -1``):
4 WCU. A notification is shown unread when ``rd`` is unset and its key is > ``rt``. A notification that
arrives late (its event older than ``rt``) is delivered already read and not counted: the
head's update is conditioned on ``rt < sk``. An unread notification that expires by TTL stays
counted until the next "Mark all read".

E-mail at most once per issue per window (``ddbmodels.inbox.mail``): the first notification a
person gets about an issue opens a mail window — an UpdateItem of ``m#<PROJECT>#<n>`` in their
collection (``ws = if_not_exists(ws, now)``, ``wo = if_not_exists(wo, token)``, ``ADD nk {event
key}``, ``ReturnValues=ALL_NEW``: 1 WCU) that says whether it opened it (the call's own token in
``wo``, so botocore's retry after a lost answer still knows); later ones in the window add their
key to the set (1 WCU each). A delayed task sends the digest when the window closes: GetItem of
the window (1 RCU, consistent), one Query of the person's notifications between the first and
last key of the set (consistent: ≈ 1 RCU per 4 KB; it reads the person's other notifications of
those minutes too, kept out in Python: bounded by what one person is told in one window), then a
claim, UpdateItem ``SET ct = token`` if ``ws`` is the window's and it is unclaimed, its own or
stale (> 2 min), and a DeleteItem conditioned on ``ct = token`` that returns every key the window
holds (``ALL_OLD``; on botocore's retry of its own delete, the claim's keys): 2 WCU an e-mail.
DynamoDB applies the ADD and the Delete one after the other, so a notification is in exactly one
window: the deleted one (in this e-mail) or a new one (the next); a task run twice finds its
window claimed and sends nothing. A window never claimed expires a day after it opened (TTL), its
notifications still in the inbox. DynamoDB Local reports a transaction's capacity per table
rather than per item, so it under-reports deliveries to several people; the costs here are
DynamoDB's.

Offboarding (``ddbmodels.tenants``) finds every item of a tenant without a Scan: one Query of
``by_tenant`` gives the watchers (a watcher item is nothing but its keys, so the KEYS_ONLY entry
*is* the item) and the inbox heads (hence the people), then one Query per person reads their
collection. The index's partition per tenant takes only watch/unwatch and a person's first
notification — never the per-notification writes (``c`` is not projected).
"""

from __future__ import annotations

import re
from datetime import timedelta

from pynamodb.attributes import (
    BooleanAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import ISSUE_STREAM_RE, TENANT_SLUG_RE, issue_stream, parse_issue_stream

RETENTION = timedelta(days=90)
BY_TENANT_INDEX = "by_tenant"
HEAD_SK = "#"
WATCHER_MARK = "w#"
NOTE_MARK = "n#"
MAIL_MARK = "m#"
TEXT_MAX = 200
# Django usernames are letters, digits and @.+-_ (150 at most); '#' would break the key layout.
USERNAME_RE = re.compile(r"^[^#\s]{1,150}$")
# An event's sort key (ddbmodels.events): "2026-11-22T10:15:30.123Z#9f86d081".
EVENT_KEY_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f]{8}$")


def check_tenant(tenant: str) -> str:
    if not TENANT_SLUG_RE.match(tenant):
        raise ValueError(f"invalid tenant {tenant!r}")
    return tenant


def check_username(username: str) -> str:
    if not USERNAME_RE.match(username):
        raise ValueError(f"invalid username {username!r}")
    return username


def person_key(tenant: str, username: str) -> str:
    """Partition key of a person's inbox: ``<tenant>#<username>``."""
    return f"{check_tenant(tenant)}#{check_username(username)}"


def issue_key(tenant: str, project_key: str, number: int) -> str:
    """Partition key of an issue's watchers: the issue's stream ``<tenant>#<PROJECT>#<number>``, checked."""
    key = issue_stream(check_tenant(tenant), project_key, number)
    if not ISSUE_STREAM_RE.match(key):
        raise ValueError(f"invalid issue {project_key!r} #{number!r}")
    return key


parse_stream = parse_issue_stream  # (tenant, project key, number) of an issue's stream; ValueError otherwise


def watcher_sk(username: str) -> str:
    return f"{WATCHER_MARK}{check_username(username)}"


def note_sk(event_key: str) -> str:
    """Sort key of a notification: the event's sort key, so one event is one notification per person."""
    if not EVENT_KEY_RE.match(event_key):
        raise ValueError(f"invalid event key {event_key!r}")
    return f"{NOTE_MARK}{event_key}"


def mail_sk(project_key: str, number: int) -> str:
    """Sort key of a person's mail window for one issue: ``m#<PROJECT>#<number>``."""
    if not re.match(r"^[A-Z][A-Z0-9]{1,9}$", project_key) or int(number) < 1:
        raise ValueError(f"invalid issue {project_key!r} #{number!r}")
    return f"{MAIL_MARK}{project_key}#{int(number)}"


def read_through_key(time_key: str) -> str:
    """``rt`` for "read up to ``time_key``": above every notification key of that millisecond."""
    return f"{NOTE_MARK}{time_key}#~"


class ByTenantIndex(GlobalSecondaryIndex["InboxItem"]):
    """Sparse, KEYS_ONLY, hash only: a tenant's watchers and inbox heads (for offboarding)."""

    class Meta:
        index_name = BY_TENANT_INDEX
        projection = KeysOnlyProjection()

    tenant = UnicodeAttribute(hash_key=True, attr_name="tn")


@register("inbox")
class InboxItem(Model):
    """Any item of the inbox table (watcher, inbox head or notification): the attributes it has are set."""

    class Meta:
        table_name = "inbox"  # the base name: register() prefixes it

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    tenant = UnicodeAttribute(attr_name="tn", null=True)
    # inbox head
    unread = NumberAttribute(attr_name="c", null=True)
    read_through = UnicodeAttribute(attr_name="rt", null=True)
    # notification
    reference = UnicodeAttribute(attr_name="ref", null=True)
    project_key = UnicodeAttribute(attr_name="pj", null=True)
    number = NumberAttribute(attr_name="n", null=True)
    actor = UnicodeAttribute(attr_name="ac", null=True)
    kind = UnicodeAttribute(attr_name="k", null=True)
    text = UnicodeAttribute(attr_name="tx", null=True)
    read = BooleanAttribute(attr_name="rd", null=True)
    expires = TTLAttribute(attr_name="x", null=True)
    # mail window
    window_start = UnicodeAttribute(attr_name="ws", null=True)
    window_keys = UnicodeSetAttribute(attr_name="nk", null=True)
    window_opener = UnicodeAttribute(attr_name="wo", null=True)  # the opening call's token (a retried open knows it)
    window_claim = UnicodeAttribute(attr_name="ct", null=True)  # the digest's token while it takes the window
    window_claimed_at = UnicodeAttribute(attr_name="ca", null=True)  # when (a stale claim may be taken over)

    by_tenant = ByTenantIndex()
