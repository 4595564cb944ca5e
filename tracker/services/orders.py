"""Order writes: members and owners place orders, owners move them along the workflow.

The numbering mode (ORDER_NUMBERING) and the time shards (ORDER_SHARDS) come from settings.
Errors from ddbmodels pass through: GapLeft (atomic mode: the number was taken, the order not
written) and SequenceContention (gapless mode: every retry lost the race) become a form error on
the order form; InvalidTransition (the status does not allow the move) and ChangedSinceRead (it
changed meanwhile) become a 409 page (``tracker.error_pages``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied

from ddbmodels import orders
from ddbmodels.orders import OrderItem
from ddbmodels.patterns.sequences import Claimed
from tracker.cache import store
from tracker.models import Membership
from tracker.selectors.orders import ORDER_KEY_CACHE_SECONDS, order_key_cache_key
from tracker.services.permissions import require_role


def order_place(
    *, membership: Membership, product: str, quantity: int, delivery: str, idempotency_key: str | None = None
) -> OrderItem:
    """Place an order for the membership's tenant with the next global number (members and owners)."""
    return order_place_claim(
        membership=membership, product=product, quantity=quantity, delivery=delivery, idempotency_key=idempotency_key
    ).item


def order_place_claim(
    *, membership: Membership, product: str, quantity: int, delivery: str, idempotency_key: str | None = None
) -> Claimed[OrderItem]:
    """``order_place``, returning the claim: ``replayed`` when the key had already placed the order."""
    require_role(membership, "member")
    claimed = orders.order_place(
        customer=membership.tenant.slug,
        product=product,
        quantity=quantity,
        delivery=delivery,
        placed_by=membership.user.get_username(),
        mode=settings.ORDER_NUMBERING,
        shards=settings.ORDER_SHARDS,
        idempotency_key=idempotency_key,
    )
    # The by_number index is eventually consistent; the page shown next must find the order.
    order = claimed.item
    store(order_key_cache_key(order.customer, int(order.number)), order.placed, ORDER_KEY_CACHE_SECONDS)
    return claimed


def order_transition(*, membership: Membership, order: OrderItem, to: str) -> OrderItem:
    """Move the order to ``to`` if its current status allows it (owners only); else nothing changes."""
    require_role(membership, "owner")
    if order.customer != membership.tenant.slug:
        raise PermissionDenied("This order belongs to another team.")
    return orders.order_transition(order, to=to, by=membership.user.get_username())
