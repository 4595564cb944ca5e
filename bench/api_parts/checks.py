"""Each "Done when" of issue 22, checked over HTTP only: what the answers say, never what the tables hold.

A check returns ``{"ok", "checked", "failures", …figures}``; a failure is a sentence naming what was wrong.
The order matters where one check's traffic would disturb another's: the creates under loss run before any
webhook is registered, the anonymous calls that run into the 429 come last.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import requests

from api_parts.client import Answer, Api, Calls
from api_parts.lossy import LossyProxy
from api_parts.receiver import Receiver

ISSUES = "/teams/{team}/projects/{key}/issues"
ISSUE = "/teams/{team}/projects/{key}/issues/{number}"
CREATED = "created the issue"  # the history's line for an issue's creation
TRIES = 12  # a create retried with its key after a 503 or a dropped connection, at most this many times


@dataclass
class Context:
    base: str
    calls: Calls
    tokens: Any  # setup.Tokens
    proxy: LossyProxy
    receiver: Receiver
    big: tuple[str, str]
    issues: int
    limit: int
    threads: int
    keys: int
    rounds: int = 3  # calls of each operation in the tour (api_parts/tour.py)
    lose_reads: bool = False  # the creates under loss lose reads' answers too
    figures: dict[str, Any] = field(default_factory=dict)

    def api(self, token: str | None) -> Api:
        return Api(self.base, token, self.calls)


def result(failures: list[str], checked: int, **figures: Any) -> dict[str, Any]:
    return {"ok": not failures, "checked": checked, "failures": failures[:20], **figures}


def issues_path(team: str, key: str) -> str:
    return ISSUES.format(team=team, key=key)


def openapi_document(ctx: Context) -> dict[str, Any]:
    """The OpenAPI 3.1 document validates; every operation states its DynamoDB cost; the issue's paths are there."""
    from openapi_spec_validator import validate

    answer = ctx.api(None).get("/openapi.json", "/openapi.json")
    failures: list[str] = []
    if answer.status != 200:
        return result([f"openapi.json answered {answer.status}"], 1)
    document = answer.json()
    try:
        validate(document)
    except Exception as error:  # noqa: BLE001 (any refusal is the finding)
        failures.append(f"the document does not validate: {str(error)[:300]}")
    operations = [
        (method.upper(), path, operation)
        for path, methods in document.get("paths", {}).items()
        for method, operation in methods.items()
        if isinstance(operation, dict)
    ]
    failures += [f"{m} {p}: no x-dynamodb-cost" for m, p, op in operations if "x-dynamodb-cost" not in op]
    if document.get("openapi", "").split(".")[:2] != ["3", "1"]:
        failures.append(f"openapi {document.get('openapi')!r}, not 3.1")
    paths = {path.removeprefix("/api/v1") for _, path, _ in operations}
    wanted = ["/teams/{team}/projects", ISSUES.replace("{key}", "{key}"), ISSUE, "/teams/{team}/issues"]
    failures += [f"no operation at {path}" for path in wanted if path not in paths]
    return result(failures, len(operations), operations=len(operations))


def list_pages(ctx: Context) -> dict[str, Any]:
    """The big project's open issues page by page (``limit``), at one DynamoDB request a page, each issue once."""
    team, key = ctx.big
    api = ctx.api(ctx.tokens.viewer)
    api.get(f"/teams/{team}/projects/{key}", "/teams/{team}/projects/{key}")  # the project, cached as pages do
    url: str | None = issues_path(team, key)
    params: dict[str, Any] | None = {"state": "open", "limit": ctx.limit}
    failures: list[str] = []
    seen: list[int] = []
    pages: list[dict[str, Any]] = []
    while url:
        answer = api.get(url, ISSUES, params=params)
        if answer.status != 200:
            failures.append(f"page {len(pages) + 1}: {answer.status} {answer.body[:200]!r}")
            break
        body = answer.json()
        seen += [row["number"] for row in body["items"]]
        cost = answer.cost()
        pages.append(
            {"rows": len(body["items"]), "requests": cost[0] if cost else None, "rcu": cost[1] if cost else None}
        )
        if cost is None:
            failures.append(f"page {len(pages)}: no X-DynamoDB-Requests header")
        elif cost[0] != 1:
            failures.append(f"page {len(pages)}: {cost[0]} DynamoDB requests, not 1")
        following = answer.links().get("next")
        if bool(following) != bool(body.get("next_cursor")):
            failures.append(f"page {len(pages)}: Link rel=next and next_cursor disagree")
        url, params = following, None
    if sorted(seen) != list(range(1, ctx.issues + 1)):
        twice = [n for n, c in Counter(seen).items() if c > 1]
        failures.append(f"{len(seen)} rows, {len(set(seen))} distinct of {ctx.issues}; twice: {twice[:10]}")
    expected = -(-ctx.issues // ctx.limit)
    if len(pages) != expected:
        failures.append(f"{len(pages)} pages, not {expected}")
    rcus = [p["rcu"] for p in pages if p["rcu"] is not None]
    return result(
        failures,
        len(pages),
        pages=len(pages),
        limit=ctx.limit,
        requests_per_page=sorted({p["requests"] for p in pages if p["requests"] is not None}),
        rcu_per_page_max=max(rcus, default=None),
        rcu_per_page_mean=round(sum(rcus) / len(rcus), 2) if rcus else None,
    )


def create_until_answered(api: Api, path: str, body: dict[str, Any], key: str, tally: Counter[str]) -> Answer | None:
    """POST with ``key`` until an answer other than 503/409 or a dropped connection comes (at most TRIES)."""
    for _ in range(TRIES):
        try:
            answer = api.post(path, ISSUES, body, key=key)
        except requests.RequestException:
            tally["connection errors"] += 1
            continue
        if answer.status in (503, 409):
            tally[f"{answer.status} retried"] += 1
            continue
        return answer
    return None


def creates_under_loss(ctx: Context, team: str = "acme", key: str = "API") -> dict[str, Any]:
    """Creates with Idempotency-Keys while 30 % of DynamoDB's write answers are lost: each key's issue exactly once,
    its history telling its creation once (read through the API)."""
    api = ctx.api(ctx.tokens.member)
    path = issues_path(team, key)
    run = uuid.uuid4().hex[:6]
    answers: dict[str, Answer | None] = {}
    tally: Counter[str] = Counter()
    lock = threading.Lock()

    def writer(thread: int) -> None:
        for n in range(ctx.keys):
            title = f"Lossy {run} {thread}-{n}"
            got = create_until_answered(api, path, {"title": title, "priority": "high"}, f"{run}-{thread}-{n}", tally)
            with lock:
                answers[title] = got

    lost_before = ctx.proxy.lost
    ctx.proxy.loss, ctx.proxy.reads = 0.3, ctx.lose_reads
    try:
        workers = [threading.Thread(target=writer, args=(t,)) for t in range(ctx.threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        ctx.proxy.loss, ctx.proxy.reads = 0.0, False
    failures = [
        f"{title}: {'no answer but 503/409' if a is None else a.status} after {TRIES} tries"
        for title, a in answers.items()
        if a is None or a.status != 201
    ]
    numbers = {title: a.json()["number"] for title, a in answers.items() if a is not None and a.status == 201}
    listed = all_rows(api, path, {"state": "open", "limit": 100})
    if listed is None:
        return result([*failures, "the project's open issues could not be listed"], len(answers))
    counted = Counter(row["title"] for row in listed if row["title"].startswith(f"Lossy {run} "))
    failures += [f"{title} stored {n} times" for title, n in counted.items() if n != 1]
    failures += [f"{title} not stored" for title in answers if counted[title] == 0]
    by_title = {row["title"]: row["number"] for row in listed}
    failures += [
        f"{t}: answered #{n}, stored as #{by_title.get(t)}" for t, n in numbers.items() if by_title.get(t) != n
    ]
    failures += created_once(api, path, numbers.values())
    replays = 0
    for title, first in list(answers.items())[:3]:  # the same key again: the first answer, byte for byte
        if first is None or first.status != 201:
            continue
        thread, n = title.rsplit(" ", 1)[1].split("-")
        again = api.post(path, ISSUES, {"title": title, "priority": "high"}, key=f"{run}-{thread}-{n}")
        replays += 1
        if (again.status, again.body) != (201, first.body):
            failures.append(
                f"{title}: the replay answered {again.status}, {'other' if again.body != first.body else 'same'} bytes"
            )
    return result(
        failures,
        len(answers),
        keys=len(answers),
        answers_lost=ctx.proxy.lost - lost_before,
        retried=dict(tally),
        replays_byte_identical=replays,
    )


def created_once(api: Api, path: str, numbers: Iterable[int]) -> list[str]:
    """Each issue's history (its first page: an issue just made has a line or two) tells its creation once: a create
    whose answer was lost and then sent again must be recorded, and recorded once (its event, hence its webhook)."""
    failures = []
    for number in numbers:
        answer = api.get(f"{path}/{number}/history", ISSUE + "/history", params={"limit": 100})
        if answer.status != 200:
            failures.append(f"#{number}: its history answered {answer.status}")
            continue
        lines = [line["text"] for line in answer.json()["items"]]
        if lines.count(CREATED) != 1:
            failures.append(f"#{number}: {lines.count(CREATED)} '{CREATED}' lines in its history, not 1: {lines[:5]}")
    return failures


def all_rows(api: Api, path: str, params: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Every row of a list, following ``Link: rel=next``; None when a page was refused."""
    rows: list[dict[str, Any]] = []
    url: str | None = path
    sent: dict[str, Any] | None = params
    while url:
        answer = api.get(url, ISSUES, params=sent)
        if answer.status != 200:
            return None
        rows += answer.json()["items"]
        url, sent = answer.links().get("next"), None
    return rows
