"""A program calling the API over HTTP, as any other would: a Bearer token, JSON, the answer's headers read.

Every call is timed and filed under its operation (``GET /teams/{team}/projects/{key}/issues``) with its status,
for the p50/p99 of each; the cost headers (``X-DynamoDB-Requests``, ``-RCU``, ``-WCU``) are read from every
answer that has them. Nothing here imports the application: the check knows the API from issue 22 alone.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

import requests

TIMEOUT = (5, 60)  # connect, read


@dataclass(frozen=True)
class Answer:
    status: int
    headers: requests.structures.CaseInsensitiveDict[str]
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def cost(self) -> tuple[int, float, float] | None:
        """(requests, RCU, WCU) DynamoDB spent on this call, from its headers; None when it does not say."""
        found = [self.headers.get(f"X-DynamoDB-{part}") for part in ("Requests", "RCU", "WCU")]
        if found[0] is None:
            return None
        return int(found[0]), float(found[1] or 0), float(found[2] or 0)

    def links(self) -> dict[str, str]:
        """The ``Link`` header's URLs by ``rel``."""
        found = {}
        for part in (self.headers.get("Link") or "").split(","):
            if ";" in part:
                url, _, params = part.partition(";")
                rel = params.split("rel=", 1)[-1].strip().strip('"')
                found[rel] = url.strip().strip("<>")
        return found


class Calls:
    """Latencies and statuses by operation, from every thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds: dict[str, list[float]] = {}
        self.statuses: dict[str, dict[str, int]] = {}

    def add(self, operation: str, seconds: float, status: str) -> None:
        with self._lock:
            self.seconds.setdefault(operation, []).append(seconds)
            counted = self.statuses.setdefault(operation, {})
            counted[status] = counted.get(status, 0) + 1


class Api:
    """Calls ``base`` (``http://…/api/v1``) with ``token`` (None: no Authorization header)."""

    def __init__(self, base: str, token: str | None, calls: Calls) -> None:
        self.base = base.rstrip("/")
        self.token = token
        self.calls = calls
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def call(
        self,
        method: str,
        path: str,
        operation: str,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> Answer:
        """One call; ``operation`` names it in the figures (the path template). Connection errors raise."""
        sent = dict(headers or {})
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        url = path if path.startswith("http") else self.base + path
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        began = time.perf_counter()
        try:
            response = self._session().request(
                method, url, data=data, headers=sent, params=params, timeout=TIMEOUT, allow_redirects=False
            )
        except requests.RequestException as error:
            self.calls.add(f"{method} {operation}", time.perf_counter() - began, type(error).__name__)
            raise
        seconds = time.perf_counter() - began
        self.calls.add(f"{method} {operation}", seconds, str(response.status_code))
        return Answer(response.status_code, response.headers, response.content, seconds)

    def get(self, path: str, operation: str, **kwargs: Any) -> Answer:
        return self.call("GET", path, operation, **kwargs)

    def post(self, path: str, operation: str, body: Any, *, key: str | None = None, **kwargs: Any) -> Answer:
        """A POST with an ``Idempotency-Key`` (a new one unless ``key`` is given)."""
        headers = {"Idempotency-Key": key or str(uuid.uuid4()), **kwargs.pop("headers", {})}
        return self.call("POST", path, operation, body=body, headers=headers, **kwargs)
