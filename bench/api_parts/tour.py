"""Every operation of the API, called as a program would, ``rounds`` times each: the p50/p99 of each endpoint.

The tour runs after the webhook check (its endpoint gets the tour's ``issue.created`` deliveries, which are then
sent again) and before the 429 check (anonymous calls: another budget than the tokens'). In each round, in acme/API:
bob (``write``) reads the token, the projects, the project, both issue lists, the members, labels, milestones, one
milestone, the leaderboard and his inbox; creates an issue, reads it, edits it, reads its history; adds a comment,
lists, reads, edits and deletes it; places an order and reads the orders and it. alice (``admin``) mentions bob in a
comment, and registers, lists, reads, edits, reads the log of and deletes an endpoint. Then bob marks the
notifications alice's mentions gave him read one by one (waiting for the worker's fan-out) and his whole inbox, and
alice sends delivered deliveries again. Every call's status is the one its success answers (else a failure).

Last, the operations the OpenAPI document lists are held against what the whole run measured: an operation never
answered 2xx or 304 is a failure, so a new endpoint without a call here turns the check red.
"""

from __future__ import annotations

import time
from typing import Any

from api_parts.checks import ISSUE, ISSUES, Context, result
from api_parts.client import Answer, Api

TEAM, PROJECT = "acme", "API"
T = "/teams/{team}"
P = T + "/projects/{key}"
COMMENTS = ISSUE + "/comments"
COMMENT = COMMENTS + "/{comment_id}"
HOOKS = T + "/webhooks"
HOOK = HOOKS + "/{webhook_id}"
DELIVERIES = HOOK + "/deliveries"
WAIT_SECONDS = 30  # for the worker: bob's notifications, the tour's deliveries delivered


class Tour:
    """One caller's calls with the status each must answer; what answered otherwise is in ``wrong``."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.bob, self.alice = ctx.api(ctx.tokens.member), ctx.api(ctx.tokens.owner)
        self.wrong: list[str] = []

    def expect(self, answer: Answer, status: int, operation: str) -> Any:
        """The answer's JSON when it is ``status``; else noted in ``wrong`` (None)."""
        if answer.status != status:
            self.wrong.append(f"{operation}: {answer.status}, not {status}: {answer.body[:160]!r}")
            return None
        return answer.json() if answer.body else {}

    def call(self, api: Api, method: str, template: str, status: int, body: Any = None, **names: Any) -> Any:
        """``method`` on ``template`` (filled with acme, API and ``names``), filed under the template."""
        path = template.format(team=TEAM, key=PROJECT, **names)
        # A POST carries a new Idempotency-Key, as the README asks of every create.
        answer = api.post(path, template, body) if method == "POST" else api.call(method, path, template, body=body)
        return self.expect(answer, status, f"{method} {template}")

    def reads(self, milestone_id: str | None) -> None:
        bob = self.bob
        self.call(bob, "GET", "/token", 200)
        self.call(bob, "GET", T + "/projects", 200)
        self.call(bob, "GET", P, 200)
        self.call(bob, "GET", ISSUES, 200)
        self.call(bob, "GET", T + "/issues", 200)
        self.call(bob, "GET", T + "/members", 200)
        self.call(bob, "GET", T + "/labels", 200)
        self.call(bob, "GET", P + "/milestones", 200)
        if milestone_id:
            self.call(bob, "GET", P + "/milestones/{milestone_id}", 200, milestone_id=milestone_id)
        self.call(bob, "GET", T + "/leaderboard", 200)
        self.call(bob, "GET", T + "/inbox", 200)

    def issue_and_comments(self, n: int) -> None:
        bob = self.bob
        made = self.call(bob, "POST", ISSUES, 201, {"title": f"Tour {n}", "priority": "low"})
        if not made:
            return
        number = made["number"]
        self.call(bob, "GET", ISSUE, 200, number=number)
        self.call(bob, "PATCH", ISSUE, 200, {"title": f"Tour {n}, edited"}, number=number)
        self.call(bob, "GET", ISSUE + "/history", 200, number=number)
        said = self.call(bob, "POST", COMMENTS, 201, {"body": f"Tour comment {n}"}, number=number)
        self.call(bob, "GET", COMMENTS, 200, number=number)
        if said:
            ids = {"number": number, "comment_id": said["id"]}
            self.call(bob, "GET", COMMENT, 200, **ids)
            self.call(bob, "PATCH", COMMENT, 200, {"body": f"Tour comment {n}, edited"}, **ids)
            self.call(bob, "DELETE", COMMENT, 204, **ids)
        self.call(self.alice, "POST", COMMENTS, 201, {"body": f"@bob a look, please ({n})"}, number=number)

    def orders(self) -> None:
        placed = self.call(self.bob, "POST", T + "/orders", 201, {"product": "seats", "quantity": 1})
        self.call(self.bob, "GET", T + "/orders", 200)
        if placed:
            self.call(self.bob, "GET", T + "/orders/{number}", 200, number=placed["number"])

    def endpoint(self, n: int) -> None:
        alice = self.alice
        body = {"url": self.ctx.receiver.url, "events": ["issue.deleted"], "description": f"tour {n}"}
        made = self.call(alice, "POST", HOOKS, 201, body)
        self.call(alice, "GET", HOOKS, 200)
        if made:
            hook = {"webhook_id": made["id"]}
            self.call(alice, "GET", HOOK, 200, **hook)
            self.call(alice, "PATCH", HOOK, 200, {"description": f"tour {n}, edited"}, **hook)
            self.call(alice, "GET", DELIVERIES, 200, **hook)
            self.call(alice, "DELETE", HOOK, 204, **hook)

    def inbox(self, rounds: int) -> None:
        """bob's notifications from alice's mentions, read one by one (as the worker fans them out), then all."""
        done: set[str] = set()
        deadline = time.monotonic() + WAIT_SECONDS
        while len(done) < rounds and time.monotonic() < deadline:
            page = self.call(self.bob, "GET", T + "/inbox", 200) or {}
            unread = [note["id"] for note in page.get("items", []) if note.get("unread") and note["id"] not in done]
            for note_id in unread[: rounds - len(done)]:
                self.call(self.bob, "POST", T + "/inbox/{note_id}/read", 200, note_id=note_id)
                done.add(note_id)
            if len(done) < rounds:
                time.sleep(0.5)
        if len(done) < rounds:
            self.wrong.append(f"bob had {len(done)} notifications to read within {WAIT_SECONDS} s, not {rounds}")
        for _ in range(rounds):
            self.call(self.bob, "POST", T + "/inbox/read", 200)

    def redeliveries(self, rounds: int) -> None:
        """Delivered deliveries of the webhook check's endpoint sent again (202), once the worker delivered them."""
        hooks = self.call(self.alice, "GET", HOOKS, 200) or []
        items = hooks.get("items", []) if isinstance(hooks, dict) else hooks
        if not items:
            self.wrong.append("no endpoint left to send a delivery again")
            return
        hook = {"webhook_id": items[0]["id"]}
        delivered: list[str] = []
        deadline = time.monotonic() + WAIT_SECONDS
        while len(delivered) < rounds and time.monotonic() < deadline:
            log = self.call(self.alice, "GET", DELIVERIES, 200, **hook) or {}
            delivered = [row["id"] for row in log.get("items", []) if row.get("status") == "delivered"]
            if len(delivered) < rounds:
                time.sleep(0.5)
        for delivery_id in delivered[:rounds]:
            self.call(self.alice, "POST", DELIVERIES + "/{delivery_id}/redeliver", 202, delivery_id=delivery_id, **hook)
        if len(delivered) < rounds:
            self.wrong.append(f"{len(delivered)} deliveries delivered within {WAIT_SECONDS} s, not {rounds}")


def document_operations(ctx: Context) -> set[str] | None:
    """``METHOD /path`` of every operation the OpenAPI document lists (paths without ``/api/v1``)."""
    answer = ctx.api(None).get("/openapi.json", "/openapi.json")
    if answer.status != 200:
        return None
    return {
        f"{method.upper()} {path.removeprefix('/api/v1')}"
        for path, methods in answer.json().get("paths", {}).items()
        for method, operation in methods.items()
        if isinstance(operation, dict)
    }


def every_operation(ctx: Context) -> dict[str, Any]:
    """Each operation called ``ctx.rounds`` times with its success answer; none of the document's left unmeasured."""
    tour = Tour(ctx)
    milestones = tour.call(tour.bob, "GET", P + "/milestones", 200) or {}
    milestone_id = next((m["id"] for m in milestones.get("items", [])), None)
    if milestone_id is None:
        tour.wrong.append("acme/API has no milestone to read")
    for n in range(ctx.rounds):
        tour.reads(milestone_id)
        tour.issue_and_comments(n)
        tour.orders()
        tour.endpoint(n)
    tour.inbox(ctx.rounds)
    tour.redeliveries(ctx.rounds)
    wanted = document_operations(ctx)
    if wanted is None:
        return result([*tour.wrong, "openapi.json could not be read"], 0)
    answered = {op for op, statuses in ctx.calls.statuses.items() if any(s[0] == "2" or s == "304" for s in statuses)}
    unmeasured = sorted(wanted - answered)
    failures = tour.wrong + [f"{op}: never answered with its success" for op in unmeasured]
    return result(failures, len(wanted), operations=len(wanted), measured=len(wanted & answered), rounds=ctx.rounds)
