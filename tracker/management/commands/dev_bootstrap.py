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
from tracker.management.commands.seed_demo import DEMO_PASSWORD, USERS

READY_FILE = ROOT / "var" / "run" / "ready"


class Command(BaseCommand):
    help = "Development bootstrap run by the Procfile's web process before the server starts."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--wait-only", action="store_true", help="wait until another process bootstrapped")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["wait_only"]:
            while not READY_FILE.exists():
                time.sleep(0.5)
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

        def role_text(staff: bool, roles: dict[str, str]) -> str:
            return "staff (admin)" if staff else ", ".join(f"{role} of {tenant}" for tenant, role in roles.items())

        logins = "\n".join(
            f"    {name:<6} {DEMO_PASSWORD}   {role_text(staff, roles)}" for name, (staff, roles) in USERS.items()
        )
        self.stdout.write(
            self.style.SUCCESS("\n  Tracker is up: http://127.0.0.1:8000/\n")
            + f"  Admin: http://127.0.0.1:8000/admin/\n  Demo logins (username password role):\n{logins}\n"
        )
