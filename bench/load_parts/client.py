"""A logged-in person in a browser, without the browser: a ``requests`` session that reads the page's forms.

Each request is timed and filed under a label ("issue page", "create issue") with its status
code; redirects are not followed, so a form's POST is measured alone and its ``Location`` says
what it created. The forms' hidden fields — the CSRF token, the idempotency key, an issue's
version — are read from the HTML the page served, as a browser would send them back.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import requests

TIMEOUT = (5, 60)  # connect, read: nothing waits for ever


@dataclass
class Form:
    action: str
    fields: dict[str, str] = field(default_factory=dict)
    buttons: list[tuple[str, str]] = field(default_factory=list)  # (name, value) of its submit buttons


class FormParser(HTMLParser):
    """Every <form>'s action, the values of its inputs (hidden and filled), and its named buttons."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._open: Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._open = Form(named.get("action", ""))
            self.forms.append(self._open)
        elif self._open is not None and tag == "input" and named.get("name"):
            if named.get("type") not in ("checkbox", "radio", "file", "submit") or "checked" in named:
                self._open.fields[named["name"]] = named.get("value", "")
        elif self._open is not None and tag == "button" and named.get("name"):
            self._open.buttons.append((named["name"], named.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None


def forms_of(html: str) -> list[Form]:
    parser = FormParser()
    parser.feed(html)
    return parser.forms


def form_ending(html: str, suffix: str) -> Form | None:
    """The first form whose action ends with ``suffix`` (``/status/``, ``/comments/``)."""
    return next((form for form in forms_of(html) if form.action.endswith(suffix)), None)


def form_posting_to(html: str, path: str) -> Form | None:
    """The first form that posts to ``path``: its action says so, or it has none (it posts to its page)."""
    return next((form for form in forms_of(html) if form.action in ("", path)), None)


class Recorder:
    """Latencies and status codes by label, from every thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, Counter[str]] = defaultdict(Counter)

    def add(self, label: str, seconds: float, status: str) -> None:
        with self._lock:
            self.seconds[label].append(seconds)
            self.statuses[label][status] += 1


class Failed(Exception):
    """A request answered with something other than what the step needs (counted, the user goes on)."""


class Browser:
    def __init__(self, base: str, recorder: Recorder) -> None:
        self.base = base
        self.recorder = recorder
        self.session = requests.Session()

    def request(self, label: str, method: str, path: str, **kwargs: Any) -> requests.Response:
        began = time.perf_counter()
        try:
            response = self.session.request(method, self.base + path, allow_redirects=False, timeout=TIMEOUT, **kwargs)
        except requests.RequestException as error:
            self.recorder.add(label, time.perf_counter() - began, type(error).__name__)
            raise Failed(f"{label}: {type(error).__name__}") from error
        self.recorder.add(label, time.perf_counter() - began, str(response.status_code))
        return response

    def get(self, label: str, path: str, *, expect: int = 200, **kwargs: Any) -> requests.Response:
        response = self.request(label, "GET", path, **kwargs)
        if response.status_code != expect:
            raise Failed(f"{label}: {response.status_code}")
        return response

    def post(self, label: str, path: str, data: dict[str, str], **kwargs: Any) -> requests.Response:
        return self.request(label, "POST", path, data=data, **kwargs)

    def login(self, username: str, password: str) -> None:
        page = self.get("login form", "/accounts/login/")
        form = form_ending(page.text, "/accounts/login/")
        if form is None:
            raise Failed("login form: no form")
        answer = self.post("log in", "/accounts/login/", {**form.fields, "username": username, "password": password})
        if answer.status_code != 302:
            raise Failed(f"log in as {username}: {answer.status_code}")


def location_path(response: requests.Response) -> str:
    """The path a redirect points at (without the host, query or fragment)."""
    target = response.headers.get("Location", "")
    if "://" in target:
        target = "/" + target.split("://", 1)[1].split("/", 1)[1]
    return target.split("?", 1)[0].split("#", 1)[0]
