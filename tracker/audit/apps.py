"""App config of the staff audit (its own app: its table and its two permissions migrate on their own)."""

from __future__ import annotations

from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "tracker.audit"
    label = "audit"
    verbose_name = "Staff audit"
    default_auto_field = "django.db.models.BigAutoField"
