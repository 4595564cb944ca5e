"""For `make run`: wait for DynamoDB Local and Redis, create tables, migrate, seed once, say hello."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from devtools.services import wait_port
from tracker.env import ROOT
from tracker.management.commands.seed_demo import DEMO_PASSWORD, READ_ONLY_STAFF, USERS

READY_FILE = ROOT / "var" / "run" / "ready"
WEB_PORT = 8000  # the Procfile's runserver


def wait_for_worker(timeout: float) -> None:
    """Block until a Celery worker answers a ping (``tracker.celery.wait_for_worker``)."""
    from tracker.celery import wait_for_worker as wait  # the Celery app only when it is needed

    wait(timeout)


class Command(BaseCommand):
    help = "Development bootstrap run by the Procfile's web process before the server starts."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--wait-only", action="store_true", help="wait until another process bootstrapped")
        parser.add_argument(
            "--banner",
            action="store_true",
            help="wait for the bootstrap, the web server and a Celery worker, print the banner, then idle",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["wait_only"] or options["banner"]:
            while not READY_FILE.exists():
                time.sleep(0.5)
        if options["banner"]:
            wait_port(WEB_PORT, timeout=300)
            wait_for_worker(timeout=300)
            self.stdout.write(self.style.SUCCESS(banner()))
            self.stdout.flush()
            while True:  # honcho stops every process when one exits
                time.sleep(3600)
        if options["wait_only"]:
            return
        for url in (settings.DYNAMODB_ENDPOINT_URL, settings.REDIS_URL):
            if url:
                parts = urlsplit(url)
                if parts.hostname in ("127.0.0.1", "localhost") and parts.port:
                    wait_port(parts.port, timeout=120)
        call_command("ddb_create_tables")
        call_command("migrate", interactive=False, verbosity=0)
        call_command("rotate_event_tables")  # the current and next periods' events tables
        call_command("seed_demo")
        READY_FILE.parent.mkdir(parents=True, exist_ok=True)
        READY_FILE.write_text(str(time.time()))

        self.stdout.write("Bootstrap done; the banner follows once the web server and the worker are ready.")


def role_text(username: str, staff: bool, roles: dict[str, str]) -> str:
    if username in READ_ONLY_STAFF:
        return "staff, read-only (admin)"
    return "staff (admin)" if staff else ", ".join(f"{role} of {tenant}" for tenant, role in roles.items())


def banner() -> str:
    """What `make run` prints last, once the web server listens and the worker answers."""
    logins = "\n".join(
        f"    {name:<6} {DEMO_PASSWORD}   {role_text(name, staff, roles)}" for name, (staff, roles) in USERS.items()
    )
    return (
        "\n  Tracker is up: http://127.0.0.1:8000/\n"
        f"  Admin: http://127.0.0.1:8000/admin/\n  Demo logins (username password role):\n{logins}\n"
    )
