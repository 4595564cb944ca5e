"""Provision a tenant and its owner from the command line."""

from __future__ import annotations

import getpass
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tracker.models import Membership, Role, Tenant


class Command(BaseCommand):
    help = "Create tenant SLUG with an owner (the user is created when missing)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slug", help="immutable tenant id: lowercase letters, digits, hyphens")
        parser.add_argument("--name", required=True, help="display name")
        parser.add_argument("--owner", required=True, help="username of the owner")
        parser.add_argument("--password", help="password when the owner is a new user (prompted if omitted)")
        parser.add_argument("--email", default="", help="e-mail of a new owner")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = Tenant(slug=options["slug"], name=options["name"])
        try:
            tenant.full_clean()
        except ValidationError as error:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())) from error
        User = get_user_model()
        with transaction.atomic():
            user = User.objects.filter(username=options["owner"]).first()
            created_user = user is None
            if user is None:
                password = options["password"]
                if not password:
                    if not sys.stdin.isatty():
                        raise CommandError(f"user {options['owner']} does not exist: give --password")
                    password = getpass.getpass(f"Password for new user {options['owner']}: ")
                user = User.objects.create_user(options["owner"], options["email"], password)
            tenant.save()
            Membership.objects.create(user=user, tenant=tenant, role=Role.OWNER)
        who = "new user" if created_user else "existing user"
        self.stdout.write(self.style.SUCCESS(f"Tenant {tenant.slug} ({tenant.name}) created; owner {user} ({who})."))
