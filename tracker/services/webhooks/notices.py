"""Telling a team's owners that one of its webhook endpoints was disabled (by a 410, or days of failures)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail

from ddbmodels.webhooks import EndpointItem
from tracker.models import Membership, Role
from tracker.services.addresses import address_confirmed

log = logging.getLogger(__name__)


def endpoint_disabled(endpoint: EndpointItem, *, why: str) -> int:
    """One e-mail to each owner of the endpoint's team with a confirmed address; how many were sent (SQL only).

    Sent once: the caller mails only when its conditional disable wrote (an endpoint already disabled is not)."""
    owners = Membership.objects.filter(tenant__slug=endpoint.tenant, role=Role.OWNER).select_related("user")
    addresses = sorted({address for m in owners if (address := address_confirmed(user=m.user))})
    if not addresses:
        return 0
    page = f"{settings.SITE_URL.rstrip('/')}/t/{endpoint.tenant}/settings/webhooks/"
    body = (
        f"Tracker stopped sending webhooks to {endpoint.url} for the team {endpoint.tenant}.\n\n"
        f"{why}\n\n"
        "Its deliveries are kept in its log for a while. Once the receiver works again, enable the endpoint and "
        f"send the deliveries you need again from the team's webhooks page:\n\n{page}\n"
    )
    try:
        send_mail(f"Webhook endpoint disabled for {endpoint.tenant}", body, None, addresses)
    except Exception:  # noqa: BLE001  (the endpoint's page says it is disabled, and why, all the same)
        log.warning("could not e-mail the owners of %s about endpoint %s", endpoint.tenant, endpoint.id, exc_info=True)
        return 0
    return len(addresses)
