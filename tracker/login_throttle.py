"""Login and password-reset throttling that works behind a proxy.

* ``client_ip``: the client's address, taken from ``X-Forwarded-For`` as written by the
  ``TRUSTED_PROXY_COUNT`` proxies in front of the app (0: ``REMOTE_ADDR``). Each proxy appends the
  address it received the request from, so the client is the entry that many places from the
  right of ``X-Forwarded-For`` + ``REMOTE_ADDR``; entries to its left are the client's own words
  and ignored. A request with fewer entries than that (it skipped a proxy) gets the left-most.
* ``LoginThrottleHandler``: django-axes' database handler, which locks a username out from one
  address after ``AXES_FAILURE_LIMIT`` failures, plus a per-address limit across usernames:
  ``AXES_ADDRESS_FAILURE_LIMIT`` failures from one address (any usernames) within the cool-off
  lock that address out too, so one password sprayed over many usernames is stopped.
* ``reset_allowed``: counts password-reset requests per address and per account in Django's
  cache (``PASSWORD_RESET_LIMIT`` per ``PASSWORD_RESET_WINDOW_SECONDS`` each).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum
from django.http import HttpRequest

log = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address as the trusted proxies saw it (AXES_CLIENT_IP_CALLABLE)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    chain = [*forwarded, remote]
    return chain[-(proxies + 1)] if len(chain) > proxies else chain[0]


class LoginThrottleHandler(AxesDatabaseHandler):
    """Axes' per username-and-address count, or the lockout figure once the address is over its own limit."""

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        failures = int(super().get_failures(request, credentials))
        address = getattr(request, "axes_ip_address", None)
        if not address:
            return failures
        attempts = AccessAttempt.objects.filter(ip_address=address)
        if settings.AXES_COOLOFF_TIME is not None:
            attempts = attempts.filter(attempt_time__gte=get_cool_off_threshold(request))
        from_address = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
        if from_address >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(failures, get_failure_limit(request, credentials))
        return failures


def _counted(key: str, window: int) -> int:
    """This request's number in the window for ``key`` (1 for the first); 0 if the cache does not answer."""
    try:
        cache.add(key, 0, window)
        return int(cache.incr(key))
    except Exception as error:  # noqa: BLE001 - Redis down or the key gone: do not block resets, say so
        log.warning("password reset not counted (%s): %s", key, error)
        return 0


def reset_allowed(request: HttpRequest, email: str) -> bool:
    """Whether this password-reset request may send mail: under the limit for its address and its account."""
    limit = settings.PASSWORD_RESET_LIMIT
    window = settings.PASSWORD_RESET_WINDOW_SECONDS
    account = hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]
    by_address = _counted(f"pwreset:ip:{client_ip(request)}", window)
    by_account = _counted(f"pwreset:account:{account}", window)
    return by_address <= limit and by_account <= limit
