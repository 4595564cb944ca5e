"""The answers issue 22 describes, each provoked once over HTTP: 422 and 409 (Idempotency-Key), 304 and 412 (ETags),
404 (another team) and 403 (a viewer's write), 429 (with its headers), signed webhooks retried then delivered."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

from api_parts.checks import ISSUE, ISSUES, Context, issues_path, result
from api_parts.client import Answer

PROBLEM = "application/problem+json"
RATE_HEADERS = ("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def is_problem(answer: Answer, status: int, code: str | None = None) -> str | None:
    """None when ``answer`` is the problem expected; else what it was."""
    body = answer.json() if answer.body and answer.header("Content-Type") == PROBLEM else None
    if answer.status != status or body is None or (code is not None and body.get("code") != code):
        return f"{answer.status} {answer.header('Content-Type')} {answer.body[:160]!r}"
    return None


def key_reuse_and_in_flight(ctx: Context, team: str = "acme", key: str = "API") -> dict[str, Any]:
    """The same key with another body: 422, nothing written; the same key while the first is running: 409."""
    api = ctx.api(ctx.tokens.member)
    path = issues_path(team, key)
    failures: list[str] = []
    used = str(uuid.uuid4())
    first = api.post(path, ISSUES, {"title": "Key reuse, the first"}, key=used)
    if first.status != 201:
        return result([f"the first create answered {first.status}"], 1)
    other = api.post(path, ISSUES, {"title": "Key reuse, another body"}, key=used)
    if found := is_problem(other, 422, "idempotency_key_reused"):
        failures.append(f"same key, other body: {found}")
    number = first.json()["number"]
    after = api.get(f"{path}/{number + 1}", ISSUE)
    if after.status == 200 and after.json()["title"] == "Key reuse, another body":
        failures.append("the refused body was written")
    statuses: list[int] = []
    for _ in range(20):  # two at once with one key: one runs, the other finds it in flight (or, later, replays)
        shared, gate = str(uuid.uuid4()), threading.Barrier(2)
        got: list[Answer] = []

        def send(shared: str = shared, gate: threading.Barrier = gate, got: list[Answer] = got) -> None:
            gate.wait()
            got.append(api.post(path, ISSUES, {"title": f"In flight {shared[:8]}"}, key=shared))

        pair = [threading.Thread(target=send) for _ in range(2)]
        for thread in pair:
            thread.start()
        for thread in pair:
            thread.join()
        statuses += [answer.status for answer in got]
        in_flight = [answer for answer in got if answer.status == 409]
        if in_flight:
            if found := is_problem(in_flight[0], 409, "idempotency_key_in_flight"):
                failures.append(f"in flight: {found}")
            break
    if 409 not in statuses:
        failures.append(f"20 pairs sent at once, never a 409: {sorted(set(statuses))}")
    return result(failures, 2 + len(statuses), pairs_statuses=sorted(set(statuses)))


def etags(ctx: Context, team: str = "acme", key: str = "API") -> dict[str, Any]:
    """GET with If-None-Match: 304; PATCH with a stale If-Match: 412 with the current issue, nothing written."""
    api = ctx.api(ctx.tokens.member)
    failures: list[str] = []
    made = api.post(issues_path(team, key), ISSUES, {"title": "ETag check"})
    if made.status != 201:
        return result([f"create answered {made.status}"], 1)
    path = f"{issues_path(team, key)}/{made.json()['number']}"
    first = api.get(path, ISSUE)
    etag = first.header("ETag")
    if first.status != 200 or not etag:
        return result([f"GET answered {first.status} with ETag {etag!r}"], 1)
    again = api.get(path, ISSUE, headers={"If-None-Match": etag})
    if again.status != 304 or again.body:
        failures.append(f"If-None-Match: {again.status}, {len(again.body)} bytes")
    edited = api.call("PATCH", path, ISSUE, body={"title": "ETag check, edited"}, headers={"If-Match": etag})
    if edited.status != 200:
        failures.append(f"PATCH with the current ETag: {edited.status} {edited.body[:160]!r}")
    stale = api.call("PATCH", path, ISSUE, body={"title": "ETag check, stale"}, headers={"If-Match": etag})
    if found := is_problem(stale, 412):
        failures.append(f"PATCH with a stale ETag: {found}")
    elif (stale.json().get("current") or {}).get("title") != "ETag check, edited":
        failures.append(f"412 without the current issue: {stale.body[:200]!r}")
    now = api.get(path, ISSUE)
    if now.json().get("title") != "ETag check, edited":
        failures.append(f"after the 412 the title is {now.json().get('title')!r}")
    changed = api.get(path, ISSUE, headers={"If-None-Match": etag})
    if changed.status != 200:
        failures.append(f"If-None-Match with the old ETag after a change: {changed.status}")
    return result(failures, 5)


def other_team_and_viewer(ctx: Context) -> dict[str, Any]:
    """Another team's URLs are 404 (as the pages); a viewer's token reads but its write is a 403, nothing written."""
    member, viewer = ctx.api(ctx.tokens.member), ctx.api(ctx.tokens.viewer)
    failures: list[str] = []
    for path, operation in (
        ("/teams/globex/projects", "/teams/{team}/projects"),
        ("/teams/globex/projects/APP/issues", ISSUES),
        ("/teams/globex/projects/APP/issues/1", ISSUE),
    ):
        if found := is_problem(member.get(path, operation), 404, "not_found"):
            failures.append(f"acme's token on {path}: {found}")
    theirs = ctx.api(ctx.tokens.other_team).get(issues_path("acme", "API"), ISSUES)
    if found := is_problem(theirs, 404, "not_found"):
        failures.append(f"globex's token on acme: {found}")
    if viewer.get(issues_path("acme", "API"), ISSUES).status != 200:
        failures.append("the viewer's token cannot read")
    refused = viewer.post(issues_path("acme", "API"), ISSUES, {"title": "A viewer's write"})
    if found := is_problem(refused, 403, "forbidden"):
        failures.append(f"the viewer's POST: {found}")
    if found := is_problem(ctx.api(None).get(issues_path("acme", "API"), ISSUES), 401):
        failures.append(f"no token: {found}")
    return result(failures, 6)


def rate_limited(ctx: Context) -> dict[str, Any]:
    """Calls without a token (counted per address) until a 429: problem+json, Retry-After and the rate headers."""
    anonymous = ctx.api(None)
    n = 0
    for n in range(1, 1000):  # noqa: B007  # n: the calls it took
        answer = anonymous.get("/teams/acme/projects", "/teams/{team}/projects")
        if answer.status == 429:
            break
    else:
        return result(["no 429 after 999 calls without a token"], 999)
    failures = [f"429 without {name}" for name in (*RATE_HEADERS, "Retry-After") if not answer.header(name)]
    if answer.header("Content-Type") != PROBLEM:
        failures.append(f"429 as {answer.header('Content-Type')}")
    reset = answer.header("RateLimit") or ""
    retry_after = int(answer.header("Retry-After") or 0)
    seconds = int(reset.rsplit("t=", 1)[-1]) if "t=" in reset else None
    if seconds is not None and retry_after < seconds:
        failures.append(f"Retry-After {retry_after} s is earlier than the reset in {seconds} s")
    return result(failures, n, calls_until_429=n, headers={name: answer.header(name) for name in RATE_HEADERS})


def webhooks(ctx: Context, team: str = "acme", key: str = "API") -> dict[str, Any]:
    """A webhook registered by the owner; an issue created; the receiver's 500s retried with one webhook-id, each
    attempt verified with ``standardwebhooks``; then logged as delivered, its attempts counted."""
    from standardwebhooks import Webhook, WebhookVerificationError

    owner, member = ctx.api(ctx.tokens.owner), ctx.api(ctx.tokens.member)
    hooks = f"/teams/{team}/webhooks"
    registration = {"url": ctx.receiver.url, "events": ["issue.created"], "description": "check"}
    made = owner.post(hooks, "/teams/{team}/webhooks", registration)
    if made.status != 201:
        return result([f"registering answered {made.status} {made.body[:300]!r}"], 1)
    hook = made.json()
    created = member.post(issues_path(team, key), ISSUES, {"title": "Webhook check"})
    if created.status != 201:
        return result([f"the create answered {created.status}"], 1)
    reference = created.json()["reference"]
    began = time.monotonic()
    failures: list[str] = []
    if not ctx.receiver.wait_for(1, timeout=90):
        failures.append(f"not delivered within 90 s ({len(ctx.receiver.received)} attempts came)")
    took = time.monotonic() - began
    came = list(ctx.receiver.received)
    ids = {r.headers.get("webhook-id") for r in came}
    verifier = Webhook(hook["secret"])
    for attempt in came:
        try:
            payload = verifier.verify(attempt.body, attempt.headers)
        except WebhookVerificationError as error:
            failures.append(f"attempt answered {attempt.answered}: signature refused ({error})")
            continue
        if payload.get("type") != "issue.created" or json.dumps(payload).find(reference) < 0:
            failures.append(f"payload {str(payload)[:200]} is not {reference}'s creation")
    if len(ids) != 1:
        failures.append(f"{len(ids)} webhook-ids for one delivery: {sorted(str(i) for i in ids)}")
    if [r.answered for r in came][: ctx.receiver.fail_first + 1] != [500] * ctx.receiver.fail_first + [204]:
        failures.append(f"answers {[r.answered for r in came]}: not retried after the 500s")
    logged = owner.get(f"{hooks}/{hook['id']}/deliveries", "/teams/{team}/webhooks/{webhook_id}/deliveries")
    rows = logged.json().get("items", []) if logged.status == 200 else []
    if not rows or rows[0].get("status") != "delivered" or rows[0].get("attempts") != len(came):
        failures.append(f"the log says {logged.status} {str(rows[:1])[:300]}")
    return result(
        failures,
        len(came),
        deliveries=len(ctx.receiver.delivered()),
        attempts=len(came),
        retries=max(0, len(came) - len(ctx.receiver.delivered())),
        seconds_to_delivered=round(took, 1),
    )
