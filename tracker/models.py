"""Relational models: tenants and who belongs to them. Tracker data itself lives in DynamoDB."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from ddbmodels.core.keys import TENANT_SLUG_RE


class Tenant(models.Model):
    """An organisation; its slug is part of every DynamoDB key it owns, so it never changes."""

    slug = models.SlugField(
        max_length=50,
        unique=True,
        validators=[RegexValidator(TENANT_SLUG_RE, "Lowercase letters, digits and hyphens.")],
    )
    name = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(  # type: ignore[var-annotated]
        settings.AUTH_USER_MODEL, through="Membership", related_name="tenants"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    MEMBER = "member", "Member"
    VIEWER = "viewer", "Viewer"


ROLE_RANK = {Role.VIEWER: 0, Role.MEMBER: 1, Role.OWNER: 2}


class Membership(models.Model):
    """A user's role in one tenant: owner (everything), member (write issues), viewer (read)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "tenant"], name="one_membership_per_tenant")]
        ordering = ["tenant__name", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.tenant} ({self.role})"

    def allows(self, role: str) -> bool:
        """True when this membership's role is at least ``role``."""
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[Role(role)]
