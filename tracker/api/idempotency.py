"""Exactly once for the API's POSTs: the ``Idempotency-Key`` header (draft-ietf-httpapi-idempotency-key-header).

Every POST takes a key (missing: 400). The key is the client's, per person: its record is kept under
``api.<user id>.<sha256(key)[:40]>``, so two people's keys never meet and a form's key (made per rendered form)
never meets an API key. With it goes the request's *fingerprint*: sha256 of the method, the path (and query) and
the body as canonical JSON (keys sorted), so the same JSON sent with other spacing or key order is the same request.

- ``run_once`` (creates: an issue, a comment, an order, a webhook): the key's record is read first (one
  consistent GetItem); none: the request is checked and the key and fingerprint go into the create's own
  TransactWriteItems (``ddbmodels.idempotency``'s record). The same key again replays the first answer, status and
  body byte for byte, whatever changed since (no check runs again): the body is rendered by the same function both
  times (``first_answer``), from the request (the same fingerprint means the same fields) and the item's parts that
  never change. The same key with another request: 422 ``idempotency_key_reused``, nothing written.
- ``answer_once`` (POSTs that create nothing keyed: the inbox marked read, a delivery sent again): the first
  answer is kept (``ddbmodels.idempotency.answer_put``, 1 WCU + 1 index entry, after the operation; read first with
  ``answer_get``, 1 RCU). Not atomic, and it needs not be: those operations are naturally idempotent.
- In flight: while one request holds a key, the same person's same key is a 409 ``idempotency_key_in_flight``
  (``SET api-key:<user id>:<hash> NX PX 30000`` on Redis's raw client, deleted after, only by its holder). Redis
  down: no lock (logged, paused as the cache is): the create's transaction still makes it once (the second writer
  is answered the replay); an ``answer_once`` operation may then run twice, which is harmless.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import redis
from django.http import HttpRequest, HttpResponse
from ninja import Header
from ninja.responses import NinjaJSONEncoder

from ddbmodels.core.errors import KeyReused
from ddbmodels.idempotency import answer_get, answer_put
from tracker import optional_redis
from tracker.api.problems import problem

if TYPE_CHECKING:
    from tracker.models import Membership

HEADER = "Idempotency-Key"
KEY_MAX = 255
# A bare key (visible ASCII, no quote) or an sf-string (quoted; no quote or backslash inside): 1–255 characters.
KEY_PATTERN = r'^(?:[!#-~]{1,255}|"[ !#-\[\]-~]{1,255}")$'
LOCK_MS = 30_000  # how long a key stays "in flight" if its holder dies before letting it go
IN_FLIGHT_RETRY_AFTER = "1"
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def key_header() -> Any:
    """The ``Idempotency-Key`` parameter of a POST operation, for its OpenAPI entry and its checks (a key that does
    not match the pattern is a 422 before the operation runs). Declare it ``idempotency_key: str | None =
    key_header()``; ``run_once``/``answer_once`` read the header themselves (missing: 400)."""
    return Header(
        None,
        alias=HEADER,
        max_length=KEY_MAX + 2,
        pattern=KEY_PATTERN,
        description=(
            "Required on every POST: a key of your choice (a UUID, say), 1–255 visible ASCII characters, bare or "
            "quoted. The same key again within 24 hours replays the first answer; with another body it is a 422; "
            "while the first request is running, a 409."
        ),
    )


def client_key(request: HttpRequest) -> str | HttpResponse:
    """The request's idempotency key (unquoted), or the 400 that says why there is none."""
    raw = request.headers.get(HEADER)
    if raw is None or not raw.strip():
        return problem(400, "idempotency_key_missing", f"Every POST needs an {HEADER} header (a UUID, say).")
    raw = raw.strip()
    if not re.fullmatch(KEY_PATTERN, raw):
        return problem(
            400, "idempotency_key_invalid", f"The {HEADER} is 1–{KEY_MAX} visible ASCII characters, bare or quoted."
        )
    return raw[1:-1] if raw.startswith('"') else raw


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:40]


def scoped_key(membership: Membership, key: str) -> str:
    """The key as stored: per person, hashed (``api.<user id>.<sha256(key)[:40]>``, ≤ 60 characters)."""
    return f"api.{membership.user_id}.{digest(key)}"


def fingerprint(request: HttpRequest) -> str:
    """sha256 hex of the method, the full path and the body as canonical JSON (the raw bytes if it is not JSON)."""
    body: bytes = request.body
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except ValueError:  # not JSON (ninja refuses such bodies first; a body-less POST is b"")
        canonical = body
    method = (request.method or "").encode()
    return hashlib.sha256(b"\n".join([method, request.get_full_path().encode(), canonical])).hexdigest()


@contextmanager
def in_flight(membership: Membership, key: str) -> Iterator[bool]:
    """Hold the person's key while the block runs: False when another request holds it (answer 409).

    One SET NX PX and one compare-and-delete on Redis; Redis down or paused: True without a lock (logged).
    A SET whose reply was lost (a timeout) may have taken the lock all the same: the compare-and-delete runs after
    every SET that was sent, answered or not (it deletes only this request's token), so the lock never outlives
    the request that took it and the client's retry is its replay, not 30 s of 409s (R22-10). Redis down: that is
    one more timeout, on this one request only (the others skip Redis while it is paused).
    """
    name = f"api-key:{membership.user_id}:{digest(key)}"  # a person's, 30 s at most: no team data to offboard
    token = uuid.uuid4().hex
    sent = False
    if not optional_redis.paused():
        sent = True
        try:
            if not optional_redis.client().set(name, token, nx=True, px=LOCK_MS):
                yield False
                return
        except redis.exceptions.RedisError as error:
            optional_redis.failed("idempotency lock", error)
    try:
        yield True
    finally:
        if sent:
            try:
                optional_redis.client().eval(_RELEASE, 1, name, token)
            except redis.exceptions.RedisError as error:  # it expires after LOCK_MS
                optional_redis.failed("idempotency unlock", error)


def json_text(body: Any) -> str:
    """The answer's body as the API renders JSON (ninja's encoder: dates as ISO 8601)."""
    return json.dumps(body, cls=NinjaJSONEncoder)


def answer(status: int, text: str, *, replayed: bool) -> HttpResponse:
    response = HttpResponse(text, status=status, content_type="application/json")
    if replayed:
        response["Idempotent-Replayed"] = "true"  # the body is the first answer's, byte for byte
    return response


def _in_flight() -> HttpResponse:
    return problem(
        409,
        "idempotency_key_in_flight",
        "A request with this Idempotency-Key is still running: send it again in a moment to get its answer.",
        headers={"Retry-After": IN_FLIGHT_RETRY_AFTER},
    )


def _reused() -> HttpResponse:
    return problem(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was used with a different request (method, path or body): nothing was done. "
        "Use a new key for a new request.",
    )


def run_once(
    request: HttpRequest,
    *,
    membership: Membership,
    kind: str,
    replay: Callable[[str, str], Any | None],
    create: Callable[[str, str], Any],
    first_answer: Callable[[Any], dict[str, Any]],
    status: int = 201,
) -> HttpResponse:
    """Create exactly once under the request's key. ``replay(key, fingerprint)`` runs first: what the key already
    made (the service's ``replays``: the key's record, one consistent GetItem, 1 RCU, then the item), or None. Only
    then does ``create(key, fingerprint)`` check the request (a label, an assignee, the caller's role now) and pass
    both to the service (``idempotency_key=``, ``fingerprint=``). So a request sent again is answered its first
    answer whatever changed since (R22-3): those checks apply to a new create only.

    ``first_answer(result)`` renders the body — the same function for the first answer and every replay, from the
    request and the item's parts that never change, so a replay is byte-identical even after the item changed.
    ``kind`` names the operation for its reader (the record's kind is the writer's own: ``issue#WEB``, …). Cost: the
    record's GetItem (1 RCU) before every create; the record itself is in the create's transaction (+2 WCU, +1 index
    entry). A create that finds the key used meanwhile (a race without the in-flight lock) is a replay too.
    """
    key = client_key(request)
    if isinstance(key, HttpResponse):
        return key
    scoped, signed = scoped_key(membership, key), fingerprint(request)
    with in_flight(membership, key) as free:
        if not free:
            return _in_flight()
        try:
            result = replay(scoped, signed)
            replayed = result is not None
            if result is None:
                result = create(scoped, signed)
                replayed = bool(getattr(result, "replayed", False))
        except KeyReused:
            return _reused()
    return answer(status, json_text(first_answer(result)), replayed=replayed)


def answer_once(
    request: HttpRequest, *, membership: Membership, kind: str, run: Callable[[], tuple[int, dict[str, Any]]]
) -> HttpResponse:
    """Run ``run`` once under the request's key and keep its answer (status, body ≤ 1 KB) a day: the same key again
    answers that, without running it; with another request, 422. ``kind`` (``inbox-read``, ``redeliver``…) keeps
    different operations' keys apart. Cost: GetItem 1 RCU before; after a first run PutItem 1 WCU + 1 index entry.
    An answer of 400 or more (a problem raised by ``run``) is not kept: the same key may try again.
    """
    key = client_key(request)
    if isinstance(key, HttpResponse):
        return key
    tenant, scoped, signed = membership.tenant.slug, scoped_key(membership, key), fingerprint(request)
    with in_flight(membership, key) as free:
        if not free:
            return _in_flight()
        kept = answer_get(tenant=tenant, kind=kind, key=scoped)
        if kept is not None:
            return _reused() if kept.fingerprint != signed else answer(kept.status, kept.body, replayed=True)
        status, body = run()
        text = json_text(body)
        if status < 400:
            answer_put(tenant=tenant, kind=kind, key=scoped, status=status, body=text, fingerprint=signed)
    return answer(status, text, replayed=False)
