"""The REST API at /api/v1/ and webhooks: rate limits, where deliveries may go, how long they are retried.

Each value is checked here, at start-up: a bad rate or schedule stops the process with the variable's name rather
than failing the first request that reads it.
"""

from __future__ import annotations

import ipaddress

from django.core.exceptions import ImproperlyConfigured
from limits import parse

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Rate limits (the `limits` package, fixed windows counted in Redis; per web process while Redis is down)
# ---------------------------------------------------------------------------------------------
# Requests a token may make: "<count>/<second|minute|hour|day>", e.g. "5000/hour" (GitHub's figure).
API_RATE_LIMIT = env("API_RATE_LIMIT", default="5000/hour")
# Requests from one address without a valid token (a wrong or expired token counts here, not on a token).
API_RATE_LIMIT_ANONYMOUS = env("API_RATE_LIMIT_ANONYMOUS", default="60/hour")
for _name, _value in (("API_RATE_LIMIT", API_RATE_LIMIT), ("API_RATE_LIMIT_ANONYMOUS", API_RATE_LIMIT_ANONYMOUS)):
    try:
        parse(_value)
    except ValueError as error:
        raise ImproperlyConfigured(f"{_name} must look like 5000/hour, not {_value!r}") from error
# ---------------------------------------------------------------------------------------------
# Webhooks: signed deliveries sent by the Celery worker
# ---------------------------------------------------------------------------------------------
# Networks a webhook URL may resolve to although they are private, loopback or link-local (comma-separated
# CIDRs). Empty in production: a webhook cannot reach the machine's own network. Local and test settings allow
# 127.0.0.1/32 so a receiver on the developer's machine works.
WEBHOOK_ALLOWED_NETWORKS = env.list("WEBHOOK_ALLOWED_NETWORKS", default=[])
try:
    _networks = [ipaddress.ip_network(network, strict=False) for network in WEBHOOK_ALLOWED_NETWORKS]
except ValueError as error:
    raise ImproperlyConfigured(f"WEBHOOK_ALLOWED_NETWORKS must be CIDRs like 127.0.0.1/32: {error}") from error
# Seconds to wait after each failed attempt before the next (± 20 % jitter); after the last, the delivery has
# failed. The default is 9 retries over about 3 days: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
WEBHOOK_RETRY_SCHEDULE = env.list(
    "WEBHOOK_RETRY_SCHEDULE", cast=int, default=[5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]
)
# Seconds a whole attempt may take: connecting (at most 5 an address), sending and the receiver's answer, however
# slowly it comes. At most 20: the delivery task's time limit is 30 s, and the attempt's end is written after it.
WEBHOOK_TIMEOUT_SECONDS = env.int("WEBHOOK_TIMEOUT_SECONDS", default=15)
# An endpoint whose deliveries have all failed for this many days is disabled and its owners are e-mailed.
WEBHOOK_DISABLE_AFTER_DAYS = env.int("WEBHOOK_DISABLE_AFTER_DAYS", default=3)
# Days a delivery stays in the endpoint's log (DynamoDB's TTL removes it then).
WEBHOOK_DELIVERY_DAYS = env.int("WEBHOOK_DELIVERY_DAYS", default=30)
if (
    not WEBHOOK_RETRY_SCHEDULE
    or min(WEBHOOK_RETRY_SCHEDULE) < 1
    or not 1 <= WEBHOOK_TIMEOUT_SECONDS <= 20
    or WEBHOOK_DISABLE_AFTER_DAYS < 1
    or WEBHOOK_DELIVERY_DAYS < 1
):
    raise ImproperlyConfigured(
        "WEBHOOK_RETRY_SCHEDULE needs at least one wait of 1 s or more; WEBHOOK_TIMEOUT_SECONDS 1 to 20, "
        "WEBHOOK_DISABLE_AFTER_DAYS and WEBHOOK_DELIVERY_DAYS at least 1"
    )
