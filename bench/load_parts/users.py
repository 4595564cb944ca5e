"""The virtual users: hot writers on one project, and members across Zipf-skewed teams.

- **Hot writers** all create issues in the hottest team's first project at once (the sort-key
  sequence under contention), through the new-issue form with its idempotency key; now and then
  a form is sent twice, as a double click would, and must land on the same issue.
- **Members** first take one step of each kind in the hot project (``Member.OPENING``), then pick
  a team by Zipf's law (rank k weighs 1/k^s), then a step: lists, issue pages, search, creating
  issues, moving their own issues along (resolving one awards its assignee — themselves — the
  priority's points), comments, orders, the leaderboard, attachments (some detached again), the
  inbox (open a notification, mark all read).

Everything a user is told succeeded goes into the ``Ledger`` (with the status they last moved an
issue to, a comment's body, a busy create's idempotency key), for the checks to hold against what
is stored.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from load_parts.client import Browser, Failed, form_ending, form_posting_to, location_path
from load_parts.ledger import BusyCreate, CreatedIssue, Load, zipf_weights
from load_parts.teams import PRIORITIES, THROTTLED, WORDS, labels_of, title

POINTS = {"low": 1, "medium": 2, "high": 3, "urgent": 5}  # ddbmodels.scores.POINTS; checked by the test
NOTE_LINK = re.compile(r'href="(/t/[^/"]+/inbox/[0-9T:.\-]+Z~[0-9a-f]{8}/)"')  # a notification's link
RESUBMIT_SHARE = 0.05
WAIT_FOR_THEIRS = 20.0  # seconds a member's opening comment waits for an issue another user made
DETACH_SHARE = 0.3


def issue_path(team: str, project: str, number: int) -> str:
    return f"/t/{team}/p/{project}/{number}/"


def number_from(path: str) -> int:
    return int(path.rstrip("/").rsplit("/", 1)[1])


def create_issue(
    browser: Browser,
    load: Load,
    rng: random.Random,
    me: str,
    team: str,
    project: str,
    tag: str,
    *,
    throttled: bool | None = None,
) -> CreatedIssue | None:
    """The new-issue form, filled and sent (sometimes twice, like a double click); what the user was told.

    A 503 ("very busy, submit again", or DynamoDB throttling past its retries) is a busy answer: written
    down with the form's idempotency key, and the checker proves it wrote nothing. A title carrying
    ``THROTTLED`` is one the run's throttle answers "throttled" for every write (``stack.Throttle``).
    """
    page = browser.get("new issue form", f"/t/{team}/p/{project}/new/")
    form = form_posting_to(page.text, f"/t/{team}/p/{project}/new/")
    if form is None:
        raise Failed("new issue form: no form")
    priority = rng.choice(PRIORITIES)
    if throttled is None:
        throttled = load.throttle_share > 0 and rng.random() < load.throttle_share
    name = f"{title(rng)} {tag}{' ' + THROTTLED if throttled else ''}"
    labels = labels_of(rng)
    data = {**form.fields, "title": name, "description": "Made by the load test.", "priority": priority}
    data.update({"assignee": me, "labels": labels})
    answer = browser.post(
        "create issue (throttled)" if throttled else "create issue", f"/t/{team}/p/{project}/new/", data
    )
    if answer.status_code == 503:
        key = form.fields.get("idempotency_key", "").split(":", 1)[0]
        with load.ledger.lock:
            load.ledger.busy_creates.append(BusyCreate(team, project, name, key))
        return None
    if answer.status_code != 302:
        raise Failed(f"create issue: {answer.status_code}")
    where = location_path(answer)
    made = CreatedIssue(
        team, project, number_from(where), name, me, priority, frozenset(labels.split(", ")) - {""}, "open"
    )
    load.ledger.add_issue(made)
    if rng.random() < RESUBMIT_SHARE:
        again = browser.post("create issue (sent twice)", f"/t/{team}/p/{project}/new/", data)
        with load.ledger.lock:
            load.ledger.resubmits.append(
                {
                    "label": "create issue",
                    "first": where,
                    "second": location_path(again),
                    "status": str(again.status_code),
                }
            )
    return made


def hot_writer(load: Load, browser: Browser, me: str, index: int) -> None:
    rng = random.Random(load.seed * 1000 + 500 + index)
    team, project = load.layout.hot
    seq = 0
    while load.running() or seq == 0:
        seq += 1
        # The first hot writer's first create is throttled whenever the run throttles: a busy answer every run.
        first = True if index == 0 and seq == 1 and load.throttle_share > 0 else None
        try:
            create_issue(browser, load, rng, me, team, project, f"h{index:02d}x{seq:04d}", throttled=first)
        except Failed as failure:
            load.ledger.step_failed(failure)
    load.ledger.user_done(time.monotonic() - load.began)


@dataclass
class Mine:
    """A member's own issue in a team, as far as they moved it (``issue.status`` is what they were told)."""

    issue: CreatedIssue

    @property
    def team(self) -> str:
        return self.issue.team


class Member:
    """One member's session across the teams; ``step`` does one thing picked by weight."""

    STEPS: dict[str, int] = {
        "issue list": 18,
        "my issues": 6,
        "search": 10,
        "issue page": 20,
        "create issue": 8,
        "status change": 9,
        "comment": 8,
        "place order": 5,
        "order list": 3,
        "leaderboard": 5,
        "attachment": 5,
        "inbox": 6,
    }

    def __init__(self, load: Load, browser: Browser, me: str, index: int) -> None:
        self.load, self.browser, self.me, self.index = load, browser, me, index
        self.rng = random.Random(load.seed * 1000 + index)
        self.weights = zipf_weights(len(load.layout.teams), load.zipf_s)
        self.mine: list[Mine] = []
        self.seq = 0
        self.actions: dict[str, Callable[[str, str], None]] = {
            "issue list": self.issue_list,
            "my issues": self.my_issues,
            "search": self.search,
            "issue page": self.issue_page,
            "create issue": self.create,
            "status change": self.status_change,
            "comment": self.comment,
            "place order": self.place_order,
            "order list": self.order_list,
            "leaderboard": self.leaderboard,
            "attachment": self.attachment,
            "inbox": self.inbox,
        }

    # Every member's first steps, whatever the clock says: each kind of thing is made in every run, however
    # short or slow (in the hot project, where the hot writers' issues give a comment someone to notify).
    OPENING = ("create issue", "comment", "status change", "attachment", "place order", "inbox")

    def run(self) -> None:
        team = self.load.layout.teams[0]
        project = self.load.layout.projects[team][0]
        for step in self.OPENING:
            try:
                if step == "comment":
                    self.comment(team, project, someone_elses=True)
                elif step == "status change":
                    self.status_change(team, project, to="resolved")  # an award in every run
                elif step == "attachment":
                    self.attachment(team, project, detach=self.index % 2 == 0)  # every other member detaches it
                else:
                    self.actions[step](team, project)
            except Failed as failure:
                self.load.ledger.step_failed(failure)
        self.steps()
        self.load.ledger.user_done(time.monotonic() - self.load.began)

    def steps(self) -> None:
        names, weights = list(self.STEPS), list(self.STEPS.values())
        while self.load.running():
            team = self.rng.choices(self.load.layout.teams, self.weights)[0]
            project = self.rng.choice(self.load.layout.projects[team])
            step = self.rng.choices(names, weights)[0]
            with self.load.ledger.lock:
                self.load.ledger.team_steps[team] += 1
            try:
                self.actions[step](team, project)
            except Failed as failure:
                self.load.ledger.step_failed(failure)

    def any_issue(self, team: str, project: str) -> int:
        top = max(self.load.layout.seeded[(team, project)], self.load.ledger.known_top(team, project))
        return self.rng.randint(1, top)

    def issue_list(self, team: str, project: str) -> None:
        query = self.rng.choice(("", "?q=is:open", "?q=is:in_progress sort:updated", "?q=is:closed"))
        self.browser.get("issue list", f"/t/{team}/p/{project}/{query}")

    def my_issues(self, team: str, project: str) -> None:
        self.browser.get("my issues", f"/t/{team}/issues/?q=is:open assignee:@me")

    def search(self, team: str, project: str) -> None:
        self.browser.get("search", f"/t/{team}/p/{project}/?q={self.rng.choice(WORDS)}")

    def issue_page(self, team: str, project: str) -> None:
        self.browser.get("issue page", issue_path(team, project, self.any_issue(team, project)))

    def create(self, team: str, project: str) -> None:
        self.seq += 1
        made = create_issue(
            self.browser, self.load, self.rng, self.me, team, project, f"m{self.index:02d}x{self.seq:04d}"
        )
        if made is not None:
            self.mine.append(Mine(made))

    def own(self, team: str) -> Mine | None:
        movable = [m for m in self.mine if m.team == team and m.issue.status != "resolved"]
        return self.rng.choice(movable) if movable else None

    def status_change(self, team: str, project: str, *, to: str | None = None) -> None:
        issue = self.own(team)
        if issue is None:
            self.create(team, project)
            return
        told = issue.issue
        path = issue_path(told.team, told.project, told.number)
        page = self.browser.get("issue page", path)
        # The issue page's status quick form posts to the bulk edit, which answers 302 whatever it did; the status
        # URL (302 when moved, 409 when refused) takes the same page's CSRF token and the version it shows.
        form = form_ending(page.text, "/bulk/")
        version = form.fields.get(f"v{told.number}") if form is not None else None
        if form is None or version is None:
            raise Failed("status change: no form")
        if to is None:
            to = "in_progress" if told.status == "open" and self.rng.random() < 0.5 else "resolved"
        fields = {"csrfmiddlewaretoken": form.fields.get("csrfmiddlewaretoken", ""), "version": version, "to": to}
        answer = self.browser.post("status change", path + "status/", fields)
        if answer.status_code != 302:
            raise Failed(f"status change: {answer.status_code}")
        with self.load.ledger.lock:
            told.status = to
            self.load.ledger.status_changes.append((told.team, told.project, told.number, to))
            if to == "resolved":
                self.load.ledger.awards[(team, self.me)] += POINTS[told.priority]
                self.load.ledger.resolved.append((team, told.project, told.number))

    def comment(self, team: str, project: str, *, someone_elses: bool = False) -> None:
        """A comment on any issue of the project (``someone_elses``: the newest one another user made, waiting
        up to ``WAIT_FOR_THEIRS`` seconds for one: its reporter is then told of the comment)."""
        waited = time.monotonic() + (WAIT_FOR_THEIRS if someone_elses else 0)
        while True:
            with self.load.ledger.lock:
                theirs = [
                    i.number
                    for i in self.load.ledger.issues
                    if (i.team, i.project) == (team, project) and i.by != self.me
                ]
            if theirs or time.monotonic() >= waited:
                break
            time.sleep(0.2)
        number = theirs[-1] if someone_elses and theirs else self.any_issue(team, project)
        path = issue_path(team, project, number)
        page = self.browser.get("issue page", path)
        form = form_ending(page.text, "/comments/")
        if form is None:
            raise Failed("comment: no form")
        self.seq += 1
        body = f"Seen it too, @{self.me} here ({self.rng.choice(WORDS)}, c{self.index:02d}x{self.seq:04d})."
        data = {**form.fields, "body": body}
        answer = self.browser.post("comment", path + "comments/", data)
        if answer.status_code != 302:
            raise Failed(f"comment: {answer.status_code}")
        with self.load.ledger.lock:
            self.load.ledger.comments[(team, project, number)] += 1
            self.load.ledger.comment_bodies.append(((team, project, number), body))
        if self.rng.random() < RESUBMIT_SHARE:
            again = self.browser.post("comment (sent twice)", path + "comments/", data)
            with self.load.ledger.lock:
                self.load.ledger.resubmits.append(
                    {
                        "label": "comment",
                        "first": location_path(answer),
                        "second": location_path(again),
                        "status": str(again.status_code),
                    }
                )

    def place_order(self, team: str, project: str) -> None:
        page = self.browser.get("new order form", f"/t/{team}/orders/new/")
        form = form_posting_to(page.text, f"/t/{team}/orders/new/")
        if form is None:
            raise Failed("order: no form")
        product, quantity = self.rng.choice(("seats", "storage", "support_hours")), self.rng.randint(1, 20)
        data = {**form.fields, "product": product, "quantity": str(quantity), "delivery": "standard"}
        answer = self.browser.post("place order", f"/t/{team}/orders/new/", data)
        if answer.status_code != 302:
            raise Failed(f"place order: {answer.status_code}")
        with self.load.ledger.lock:
            self.load.ledger.orders.append((team, number_from(location_path(answer)), product, quantity))

    def order_list(self, team: str, project: str) -> None:
        self.browser.get("order list", f"/t/{team}/orders/?range={self.rng.choice(('24h', '7d'))}")

    def leaderboard(self, team: str, project: str) -> None:
        self.browser.get("leaderboard", f"/t/{team}/leaderboard/")

    def attachment(self, team: str, project: str, *, detach: bool | None = None) -> None:
        issue = next((m.issue for m in reversed(self.mine) if m.team == team), None)
        number, project = (issue.number, issue.project) if issue else (self.any_issue(team, project), project)
        path = issue_path(team, project, number)
        page = self.browser.get("issue page", path)
        form = form_ending(page.text, "/attachments/")
        if form is None:
            raise Failed("attachment: no form")
        content = self.rng.randbytes(self.rng.randint(200, 20_000))
        name = f"trace-{self.index:02d}-{self.seq}.log"
        answer = self.browser.post(
            "attach file", path + "attachments/", form.fields, files={"file": (name, content, "text/plain")}
        )
        if answer.status_code != 302:
            raise Failed(f"attach file: {answer.status_code}")
        attachment_id = form.fields.get("idempotency_key", "").split(":", 1)[0]
        record = {
            "team": team,
            "project": project,
            "number": number,
            "id": attachment_id,
            "size": len(content),
            "sha256": hashlib.sha256(content).hexdigest(),
            "state": "Attached",
        }
        if detach if detach is not None else self.rng.random() < DETACH_SHARE:
            token = self.browser.session.cookies.get("csrftoken") or ""
            gone = self.browser.post(
                "detach file", f"{path}attachments/{attachment_id}/detach/", {"csrfmiddlewaretoken": token}
            )
            if gone.status_code == 302:
                record["state"] = "Detached"
        with self.load.ledger.lock:
            self.load.ledger.attachments.append(record)

    def inbox(self, team: str, project: str) -> None:
        """The inbox: now and then open a notification (it is read from then on) or mark them all read."""
        page = self.browser.get("inbox", f"/t/{team}/inbox/")
        with self.load.ledger.lock:
            self.load.ledger.inbox["pages"] += 1
        notes = NOTE_LINK.findall(page.text)
        roll = self.rng.random()
        if notes and roll < 0.5:
            opened = self.browser.get("open notification", self.rng.choice(notes), expect=302)
            with self.load.ledger.lock:
                self.load.ledger.inbox["opened"] += 1
            if "/p/" not in location_path(opened):
                raise Failed("open notification: not sent to its issue")
        elif notes and roll < 0.7:
            form = form_ending(page.text, "/inbox/read/")
            if form is None:  # nothing unread: the page offers no button
                return
            answer = self.browser.post("mark all read", f"/t/{team}/inbox/read/", form.fields)
            if answer.status_code != 302:
                raise Failed(f"mark all read: {answer.status_code}")
            with self.load.ledger.lock:
                self.load.ledger.inbox["marked all read"] += 1
