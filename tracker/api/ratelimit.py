"""Rate limits of the API (``limits``' fixed window in Redis): per token, and per address for calls without one.

``API_RATE_LIMIT`` (e.g. ``5000/hour``) is each token's; ``API_RATE_LIMIT_ANONYMOUS`` each client address's for
every call that has no valid token (no ``Authorization`` header, or a 401). Both are read at each call.

- A token's call is counted before its operation runs (``TokenThrottle``, after ``TokenAuth``); over the limit it
  is a 429 and the operation does not run. A call with ``If-None-Match`` is counted the same way, and its count is
  given back when it is answered 304 (a 304 costs no more than checking its ETag). Counting is one atomic INCR,
  so calls running at once never overshoot the limit (R22-11: tested first and counted after, they did); at the
  limit a conditional call is refused even if it would have been a 304. A 304 whose window ended while it ran
  gives its count to the next window: one call more in that window, at most one per such 304.
- A call without a token is counted per address before anything runs (``ApiMiddleware``); one with a token that
  turns out not to be valid (401) is counted per address after, and over that limit it is answered 429.
- Every answer says where its caller stands: ``RateLimit-Policy``/``RateLimit`` (the IETF draft) and
  ``X-RateLimit-Limit/-Remaining/-Reset``; a 429 adds ``Retry-After``, the seconds until the window resets.

Redis round trips: a hit (one Lua call: INCR + EXPIRE) and the window's stats (GET + TTL): 3 a call (a 304:
4, the give-back being one more INCR of -1).
When Redis fails (or ``tracker.optional_redis`` has paused it after a failure), the API keeps serving and the
limits are kept by a per-process memory window: each web process then allows the limit on its own (with N
processes, up to N times it), until Redis answers again.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import FixedWindowRateLimiter
from ninja.throttling import BaseThrottle

from ddbmodels.core.keys import utcnow
from tracker import optional_redis
from tracker.login_throttle import client_ip

POLICY = "default"  # the policy's name in RateLimit-Policy / RateLimit (the draft's quoted token)
KEY_PREFIX = "api-rl"  # the Redis keys: api-rl/LIMITER/fixed-window/<token|address>/<id>/<amount>/<window>
_lock = threading.Lock()
_redis_limiters: dict[str, FixedWindowRateLimiter] = {}
_memory_limiter = FixedWindowRateLimiter(MemoryStorage())


@dataclass(frozen=True)
class Window:
    """Where one caller stands in its current window, after this call."""

    limit: int
    remaining: int
    reset_at: int  # epoch seconds (UTC) when the window starts again
    seconds: int  # the window's length
    allowed: bool = True

    def reset_in(self) -> int:
        """Seconds until the window resets (at least 1: a client waiting that long finds room), at most the window's
        length: ``reset_at`` is already rounded up, and rounding its distance up again said ``t=3601``."""
        return max(1, min(self.seconds, math.ceil(self.reset_at - utcnow().timestamp())))

    def headers(self) -> dict[str, str]:
        """The draft's and the de-facto headers; Retry-After when the call was refused."""
        reset_in = self.reset_in()
        found = {
            "RateLimit-Policy": f'"{POLICY}";q={self.limit};w={self.seconds}',
            "RateLimit": f'"{POLICY}";r={self.remaining};t={reset_in}',
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }
        if not self.allowed:
            found["Retry-After"] = str(reset_in)
        return found


def _limiter() -> FixedWindowRateLimiter:
    """REDIS_URL's limiter (one per URL: tests point REDIS_URL elsewhere), sharing the project's client pool."""
    url = settings.REDIS_URL
    with _lock:
        if url not in _redis_limiters:
            pool = optional_redis.client(url).connection_pool  # the project's socket timeouts
            storage = RedisStorage(url, connection_pool=pool, key_prefix=KEY_PREFIX, wrap_exceptions=True)
            _redis_limiters[url] = FixedWindowRateLimiter(storage)
        return _redis_limiters[url]


def _call(what: str, run: Any) -> Any:
    """``run(limiter)`` on Redis; on the per-process memory limiter while Redis fails or is paused."""
    if not optional_redis.paused():
        try:
            return run(_limiter())
        except StorageError as error:
            optional_redis.failed(f"API rate limit {what}", error.storage_error)
    return run(_memory_limiter)


def _item(anonymous: bool) -> RateLimitItem:
    return parse(settings.API_RATE_LIMIT_ANONYMOUS if anonymous else settings.API_RATE_LIMIT)


def _identity(kind: str, key: str) -> tuple[str, str]:
    return kind, key


def count(*identity: str, anonymous: bool, hit: bool = True) -> Window:
    """Count one call for ``identity`` (or only look, ``hit=False``) and say where it stands."""
    item = _item(anonymous)

    def run(limiter: FixedWindowRateLimiter) -> Window:
        allowed = limiter.hit(item, *identity) if hit else limiter.test(item, *identity)
        stats = limiter.get_window_stats(item, *identity)
        reset_at = math.ceil(stats.reset_time)
        return Window(item.amount, max(0, stats.remaining), reset_at, item.get_expiry(), allowed)

    window: Window = _call("hit" if hit else "test", run)
    return window


def token_identity(token_id: int) -> tuple[str, str]:
    return _identity("token", str(token_id))


def address_identity(request: HttpRequest) -> tuple[str, str]:
    return _identity("address", client_ip(request) or "unknown")


def conditional(request: HttpRequest) -> bool:
    """True for a call whose count is given back if it is answered 304 (``If-None-Match``: a 304 is free)."""
    return "HTTP_IF_NONE_MATCH" in request.META


def check(request: HttpRequest, token_id: int) -> Window:
    """Count a token's call (one atomic step, conditional or not) and keep the window on the request."""
    window = count(*token_identity(token_id), anonymous=False)
    request.api_rate_window = window  # type: ignore[attr-defined]
    request.api_rate_refund = conditional(request) and window.allowed  # type: ignore[attr-defined]
    return window


def after(request: HttpRequest, response: HttpResponse) -> None:
    """Give a conditional call's count back if it was answered 304, and put the headers on the answer."""
    window: Window | None = getattr(request, "api_rate_window", None)
    token_id = getattr(getattr(request, "auth", None), "token_id", None)
    refund = getattr(request, "api_rate_refund", False) and response.status_code == 304
    if window is not None and refund and token_id is not None:
        # one round trip (INCRBY -1); the window's stats as read before, plus this call
        _call("give back", lambda limiter: limiter.hit(_item(False), *token_identity(token_id), cost=-1))
        window = replace(window, remaining=min(window.limit, window.remaining + 1))
    if window is not None:
        for name, value in window.headers().items():
            response[name] = value


class TokenThrottle(BaseThrottle):
    """ninja's throttle hook (it runs after authentication): the token's limit. Calls without a token pass here:
    ``ApiMiddleware`` counts them per address. A refusal becomes a 429 problem (``tracker.api.problems``)."""

    def allow_request(self, request: HttpRequest) -> bool:
        token_id = getattr(getattr(request, "auth", None), "token_id", None)
        if token_id is not None:
            return check(request, token_id).allowed
        if getattr(request, "api_rate_window", None) is None:  # an operation without authentication, sent a token
            window = count(*address_identity(request), anonymous=True)
            request.api_rate_window = window  # type: ignore[attr-defined]
            return window.allowed
        return True  # counted per address by ApiMiddleware already
