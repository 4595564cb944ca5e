"""Order writes: members and owners place orders; owners may cancel an order not yet paid; staff (the seller)
mark orders paid and fulfilled, and cancel paid ones, in the admin (``staff_order_transition``).

The numbering mode (ORDER_NUMBERING) and the time shards (ORDER_SHARDS) come from settings.
Errors from ddbmodels pass through: GapLeft (atomic mode: the number was taken, the order not
written) and SequenceContention (gapless mode: every retry lost the race) become a form error on
the order form; InvalidTransition (the status does not allow the move) and ChangedSinceRead (it
changed meanwhile) become a 409 page (``tracker.error_pages``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

from ddbmodels import orders
from ddbmodels.orders import OrderItem
from ddbmodels.patterns.sequences import Claimed
from tracker.cache import store
from tracker.models import Membership
from tracker.selectors.orders import ORDER_KEY_CACHE_SECONDS, order_key_cache_key
from tracker.services.permissions import require_role, staff_can_change

# What the customer's team may do with its own orders (owners): cancel one that is not paid yet.
# Payment and fulfilment, and cancelling a paid order (a refund), are the seller's steps: staff, in the admin.
TEAM_STEPS: dict[str, frozenset[str]] = {"pending": frozenset({"cancelled"})}
SELLER_ONLY = "Payment and fulfilment are recorded by Tracker staff, not by the team."
PAID_CANCEL = "A paid order is cancelled by Tracker staff (it needs a refund); ask them."
STAFF_ONLY = "Changing orders needs superuser status or the tracker.change_tenant permission."


def team_next_statuses(order: OrderItem) -> list[str]:
    """The statuses the team's owners may move ``order`` to (the buttons on its page)."""
    return [s for s in order.next_statuses if s in TEAM_STEPS.get(order.status, frozenset())]


def order_place(
    *, membership: Membership, product: str, quantity: int, delivery: str, idempotency_key: str | None = None
) -> OrderItem:
    """Place an order for the membership's tenant with the next global number (members and owners)."""
    return order_place_claim(
        membership=membership, product=product, quantity=quantity, delivery=delivery, idempotency_key=idempotency_key
    ).item


def order_place_claim(
    *,
    membership: Membership,
    product: str,
    quantity: int,
    delivery: str,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
) -> Claimed[OrderItem]:
    """``order_place``, returning the claim: ``replayed`` when the key had already placed the order.
    With ``fingerprint`` (the API's), the key sent with another request raises KeyReused, nothing written."""
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
        fingerprint=fingerprint,
    )
    # The by_number index is eventually consistent; the page shown next must find the order.
    order = claimed.item
    store(order_key_cache_key(order.customer, int(order.number)), order.placed, ORDER_KEY_CACHE_SECONDS)
    return claimed


def order_transition(*, membership: Membership, order: OrderItem, to: str) -> OrderItem:
    """Cancel the team's pending order (owners only); anything else is refused and nothing changes.

    PermissionDenied (403) for a seller's step (paid, fulfilled, cancelling a paid order);
    InvalidTransition / ChangedSinceRead (409) for a move the status does not allow.
    """
    require_role(membership, "owner")
    if order.customer != membership.tenant.slug:
        raise PermissionDenied("This order belongs to another team.")
    if to in order.next_statuses and to not in TEAM_STEPS.get(order.status, frozenset()):
        raise PermissionDenied(PAID_CANCEL if to == "cancelled" else SELLER_ONLY)
    return orders.order_transition(order, to=to, by=membership.user.get_username())


def staff_order_transition(*, user: AbstractBaseUser | AnonymousUser, order: OrderItem, to: str) -> OrderItem:
    """Staff (the seller) move any tenant's order along the workflow: paid, fulfilled, cancelled.

    PermissionDenied for staff who only read; InvalidTransition / ChangedSinceRead (409) as for the team.
    """
    if not staff_can_change(user):
        raise PermissionDenied(STAFF_ONLY)
    return orders.order_transition(order, to=to, by=user.get_username())
