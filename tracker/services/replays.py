"""A create sent again: what its idempotency key already made, read before anything is checked (R22-3).

The API's creates (an issue, a comment, an order) look their key up first: one consistent GetItem of the key's
record (1 RCU), and only when there is none do they check the request (the assignee, the labels, the milestone,
the caller's role now) and create. A request sent again after its answer was lost is so answered what it made,
whatever changed since (the assignee left, the milestone was renamed, a label is being renamed, the caller's role
was lowered, the comment was deleted), and nothing is written twice: no refused transaction, no order number
drawn. Each function also finishes what the first request may not have (it may have written the item and stopped
before recording it: a lost answer, then a 503, R22-1): the same recording as a create, under the item's own key,
so it doubles nothing (``issues.record_created``, ``comments.record_added``, the order's number cached).

None means the key made nothing (or its record expired, after ``ddbmodels.idempotency.RETENTION``): check and
create. KeyReused (422) when the key came with another request (its fingerprint). No role is required: a replay
changes nothing the first request did not, and keys are per person (the caller's own creates only).
"""

from __future__ import annotations

from dataclasses import dataclass

from ddbmodels import comments, issues, orders
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.comments import Recorded
from ddbmodels.core.errors import AlreadyExists, KeyReused
from ddbmodels.issues import IssueItem
from ddbmodels.orders import OrderItem
from ddbmodels.patterns.sequences import Claimed
from ddbmodels.webhooks import EndpointItem
from tracker.cache import invalidate, store
from tracker.models import Membership
from tracker.selectors.orders import ORDER_KEY_CACHE_SECONDS, order_key_cache_key
from tracker.selectors.webhooks import webhooks_cache_key
from tracker.services import comments as comment_services
from tracker.services import issues as issue_services


@dataclass(frozen=True)
class IssueReplay:
    """The issue a key created, as it is now (``claimed.item``: possibly edited or deleted since), and the id of
    the milestone it was created in (None: none, or a record older than that field: the issue's own then)."""

    claimed: Claimed[IssueItem]
    milestone: str | None


def issue_replay(
    *, membership: Membership, project_key: str, idempotency_key: str, fingerprint: str | None, title: str | None = None
) -> IssueReplay | None:
    """The issue ``idempotency_key`` created in the project, recorded (``issues.record_created``: nothing doubled);
    None when it created none. Cost: the record 1 RCU, and when there is one the issue 1 RCU per 4 KB (both
    consistent), then what recording again costs (``record_created``: ``title``, the request's, is the one told)."""
    found = issues.issue_replay(
        tenant=membership.tenant.slug, project_key=project_key, idempotency_key=idempotency_key, fingerprint=fingerprint
    )
    if found is None:
        return None
    issue_services.record_created(found.claimed.item, title=title, replay=True)
    milestone = found.milestone if found.milestone else getattr(found.claimed.item, "milestone", None)
    return IssueReplay(claimed=found.claimed, milestone=milestone or None)


def comment_replay(
    *,
    membership: Membership,
    project_key: str,
    number: int,
    idempotency_key: str,
    fingerprint: str | None,
    body: str | None = None,
) -> Recorded | None:
    """The comment ``idempotency_key`` added to the issue: its key (id and time) and the comment now (None when
    deleted since), recorded again while both are there (``comments.record_added``); None when it added none.
    Cost: the record 1 RCU, the comment 1 RCU per 4 KB (consistent), the issue 0.5 RCU, then recording again
    (``body``, the request's, is the one told)."""
    tenant = membership.tenant.slug
    found = comments.comment_replay(
        tenant=tenant, project_key=project_key, number=number, idempotency_key=idempotency_key, fingerprint=fingerprint
    )
    if found is not None and found.comment is not None:
        issue = issues.issue_get(tenant=tenant, project_key=project_key, number=number)
        if issue is not None and not issue.is_tombstone:
            comment_services.record_added(membership, issue, found.comment, body=body, replay=True)
    return found


def order_replay(*, membership: Membership, idempotency_key: str, fingerprint: str | None) -> Claimed[OrderItem] | None:
    """The order ``idempotency_key`` placed for the team, its number cached again (as a placement caches it for the
    page shown next); None when it placed none. Cost: the record 1 RCU, the order 1 RCU (consistent); no number
    drawn."""
    claimed = orders.order_replay(
        customer=membership.tenant.slug, idempotency_key=idempotency_key, fingerprint=fingerprint
    )
    if claimed is not None:
        order = claimed.item
        store(order_key_cache_key(order.customer, int(order.number)), order.placed, ORDER_KEY_CACHE_SECONDS)
    return claimed


def webhook_replay(*, membership: Membership, idempotency_key: str, fingerprint: str | None) -> EndpointItem | None:
    """The endpoint ``idempotency_key`` registered for the team (its id is the key's: ``endpoint_id_for``), as it is
    now; None when it registered none. The team's cached endpoints are invalidated, as a registration's every
    outcome does (its first request may have stopped before: a lost answer, R22-4). Cost: GetItem, consistent, 1 RCU
    (and a Redis DEL). No URL resolved, no limit counted: those are a new registration's checks.

    KeyReused when the key registered another request's endpoint; AlreadyExists when that endpoint was deleted since:
    its tombstone keeps neither the signing secret the first answer held nor its request's fingerprint (by design:
    a deleted endpoint's secret is gone), so that answer cannot be given again and nothing is registered again.
    """
    tenant = membership.tenant.slug
    endpoint_id = ddb_webhooks.endpoint_id_for(idempotency_key)
    endpoint = ddb_webhooks.endpoint_get(tenant, endpoint_id, consistent=True, tombstone=True)
    if endpoint is None:
        return None
    invalidate(webhooks_cache_key(tenant))
    if endpoint.status == ddb_webhooks.DELETED:
        raise AlreadyExists("This request registered a webhook that was deleted since: nothing was registered again.")
    if fingerprint and endpoint.fingerprint != fingerprint:
        raise KeyReused("This idempotency key registered a different webhook: nothing was registered.")
    return endpoint
