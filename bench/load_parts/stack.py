"""The processes of a load run: DynamoDB Local (or the endpoint given), a Redis of its own, the web server, a worker.

Everything listens on 127.0.0.1 and free ports. The web server (``manage.py runserver --noreload``,
threaded) and the Celery worker (``celery -A tracker worker``, the Procfile's concurrency) are
started as subprocesses with one environment: the application's settings (``tracker.settings.local``
and ``.env`` for what the run does not set) with the run's own table prefix, Redis, SQLite database,
media folder, ``DEBUG=false`` and every sampled hot key counted (``DYNAMODB_HOT_KEYS_SAMPLE_RATE=1``).
``Stack.stop`` ends what was started — each process group by its id, SIGTERM then SIGKILL — and is
called on success, failure and Ctrl-C alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from devtools import services
from load_parts.passthrough import WRITES, PassThrough, Reply

ROOT = Path(__file__).resolve().parents[2]
STOP_SECONDS = 15  # a warm shutdown of the worker finishes its task; then it is killed
ERROR_LINE = re.compile(r"\b(ERROR|CRITICAL)\b|^Traceback")
LOG_TAIL = 40  # lines of each process's log shown when something went wrong


class NotLoopback(ValueError):
    """The run drives 127.0.0.1 only: a DynamoDB endpoint elsewhere is refused."""


def loopback_endpoint(url: str | None) -> str | None:
    """``url`` when it is on 127.0.0.1/localhost, None when unset; NotLoopback otherwise."""
    if not url:
        return None
    host = urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost"):
        raise NotLoopback(f"DYNAMODB_ENDPOINT_URL {url} is not on this machine; bench/load.py drives 127.0.0.1 only")
    return url


def environment(*, workdir: Path, dynamodb_url: str, redis_url: str, prefix: str) -> dict[str, str]:
    """The variables the run sets for itself, its web server and its worker (``.env`` fills the rest)."""
    made = {
        "DJANGO_SETTINGS_MODULE": "tracker.settings.local",
        "SECRET_KEY": secrets.token_urlsafe(32),
        "DEBUG": "false",  # as in production: no SQL log kept per request, no debug pages
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "DYNAMODB_ENDPOINT_URL": dynamodb_url,
        "DYNAMODB_TABLE_PREFIX": prefix,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": "django-db",
        "DYNAMODB_HOT_KEYS_SAMPLE_RATE": "1",  # every request counted: the shares are exact, not estimated
        "DYNAMODB_HOT_KEYS_FLUSH_SECONDS": "1",
        "MEDIA_ROOT": str(workdir / "media"),
        "ARCHIVE_DIR": str(workdir / "archive"),
        "ARCHIVE_S3_BUCKET": "",
        "LOG_LEVEL": "WARNING",
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
    }
    if not os.environ.get("AWS_ACCESS_KEY_ID"):
        made["AWS_ACCESS_KEY_ID"] = "local"  # DynamoDB Local takes any signature
        made["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105 (a dummy, for DynamoDB Local only)
    return made


THROTTLE_ERROR = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"


class Throttle(PassThrough):
    """A pass-through to DynamoDB that answers "throttled" for every write whose request carries ``marker``.

    The web server talks to DynamoDB through it (the worker and the checker do not), so a create
    whose title carries the marker is throttled on every attempt botocore makes, exactly as
    DynamoDB answers a partition over its limits, and the page must answer "busy" (503) having
    written nothing; everything else passes through unchanged (one more local hop a call).
    """

    def __init__(self, upstream: str, marker: str, *, idle_seconds: float = PassThrough.IDLE_SECONDS) -> None:
        self.marker = marker.encode()
        self.throttled = 0
        super().__init__(upstream, idle_seconds=idle_seconds)

    def refuse(self, operation: str, body: bytes) -> Reply | None:
        if operation not in WRITES or self.marker not in body:
            return None
        with self._lock:
            self.throttled += 1
        reply = json.dumps({"__type": THROTTLE_ERROR, "message": "throttled by bench/load.py"}).encode()
        return 400, [("Content-Type", "application/x-amz-json-1.0")], reply


@dataclass
class Process:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    handle: IO[bytes]


@dataclass
class Stack:
    """What one run started; ``stop`` ends it all (safe to call twice)."""

    workdir: Path
    services: list[services.Service] = field(default_factory=list)
    processes: list[Process] = field(default_factory=list)
    web_url: str = ""
    dynamodb_url: str = ""
    redis_url: str = ""
    own_dynamodb: bool = False
    throttle: Throttle | None = None

    def start_services(self, dynamodb_url: str | None) -> None:
        """Reuse ``dynamodb_url`` (the benches' DYNAMODB_ENDPOINT_URL) or start DynamoDB Local; start Redis."""
        if dynamodb_url is None:
            self.services.append(services.start("dynamodb"))
            self.dynamodb_url, self.own_dynamodb = self.services[-1].url, True
        else:
            self.dynamodb_url = dynamodb_url
        # A Redis of its own: the capacity and hot-key figures read back are this run's alone.
        self.services.append(services.start("redis"))
        self.redis_url = f"{self.services[-1].url}/0"

    def spawn(self, name: str, command: list[str], env: dict[str, str]) -> Process:
        log = self.workdir / f"{name}.log"
        handle = log.open("wb")
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        started = Process(name, process, log, handle)
        self.processes.append(started)
        return started

    def start_web(self, env: dict[str, str], *, throttle_marker: str | None = None, wait: bool = True) -> None:
        """The web server; with ``throttle_marker`` it talks to DynamoDB through a ``Throttle``; ``wait``: until it
        listens (else ``wait_web`` later)."""
        if throttle_marker:
            self.throttle = Throttle(self.dynamodb_url, throttle_marker)
            env = {**env, "DYNAMODB_ENDPOINT_URL": self.throttle.url}
        port = services.free_port()
        self.spawn("web", [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"], env)
        self.web_url = f"http://127.0.0.1:{port}"
        if wait:
            self.wait_web()

    def wait_web(self, timeout: float = 120) -> None:
        web = next(p for p in self.processes if p.name == "web")
        services.wait_port(int(self.web_url.rsplit(":", 1)[1]), web.process, timeout=timeout)

    def start_worker(self, env: dict[str, str], concurrency: int) -> None:
        name = f"load-{secrets.token_hex(3)}@%h"
        command = [sys.executable, "-m", "celery", "-A", "tracker", "worker", "--loglevel", "WARNING"]
        command += ["--concurrency", str(concurrency), "-n", name, "--without-gossip", "--without-mingle"]
        self.spawn("worker", command, env)

    def check_alive(self) -> None:
        for started in self.processes:
            if started.process.poll() is not None:
                raise RuntimeError(f"the {started.name} process exited with {started.process.returncode}")

    def tails(self) -> str:
        """The last lines of each process's log (shown when the run failed)."""
        parts = []
        for started in self.processes:
            with contextlib.suppress(OSError):
                lines = started.log.read_text(errors="replace").splitlines()[-LOG_TAIL:]
                parts.append(f"--- {started.name} log (last {len(lines)} lines) ---\n" + "\n".join(lines))
        return "\n".join(parts)

    def keep_logs(self, folder: Path) -> list[Path]:
        """Copy each process's log into ``folder`` as ``load-<name>.log``; the copies."""
        kept = []
        for started in self.processes:
            if started.log.exists():
                kept.append(Path(shutil.copyfile(started.log, folder / f"load-{started.name}.log")))
        return kept

    def log_errors(self) -> dict[str, list[str]]:
        """Each process's log lines that report an error (ERROR, CRITICAL or a traceback's first line)."""
        found: dict[str, list[str]] = {}
        for started in self.processes:
            if started.log.exists():
                lines = started.log.read_text(errors="replace").splitlines()
                found[started.name] = [line for line in lines if ERROR_LINE.search(line)]
        return found

    def stop_processes(self) -> None:
        for started in reversed(self.processes):
            _stop_group(started.process)
            started.handle.close()

    def stop(self) -> None:
        self.stop_processes()
        self.processes.clear()
        if self.throttle is not None:
            self.throttle.stop()
            self.throttle = None
        for service in reversed(self.services):
            service.stop()
        self.services.clear()


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process we started (the worker's warm shutdown lets its pool finish), then SIGKILL
    to its process group (its id is the child's pid: only what it started) if anything lingers."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def make_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="tracker-load-"))


def remove_workdir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def wait_for_worker(timeout: float) -> None:
    """Block until a Celery worker answers a ping (Django configured in this process)."""
    from tracker.celery import wait_for_worker as wait

    wait(timeout)
