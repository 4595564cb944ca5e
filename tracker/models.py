"""Relational models: tenants and who belongs to them. Tracker data itself lives in DynamoDB."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.utils import timezone
from redis.exceptions import RedisError

from ddbmodels import tenants as ddb_tenants
from ddbmodels.core.errors import InvalidTransition
from ddbmodels.core.keys import TENANT_SLUG_RE


class TenantHasData(InvalidTransition, code="tenant_has_data"):
    """The tenant's DynamoDB data still exists (or its offboarding has not finished): the row stays."""


class TenantQuerySet(models.QuerySet["Tenant"]):
    def delete(self) -> tuple[int, dict[str, int]]:
        """Refused (nothing deleted) while any of the tenants still has data; checked before the transaction."""
        for tenant in self:
            tenant.refuse_delete_with_data()
        return super().delete()


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

    objects = TenantQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        self.refuse_delete_with_data()
        return super().delete(*args, **kwargs)

    def refuse_delete_with_data(self) -> None:
        """TenantHasData while its DynamoDB data exists or its offboarding has not finished."""
        problem = self.data_left()
        if problem:
            raise TenantHasData(problem, tenant=self.slug)

    def clean(self) -> None:
        """A new tenant may not take a slug used before: retired, or still holding DynamoDB data."""
        super().clean()
        if self.pk is None and self.slug:
            problem = slug_unavailable(self.slug)
            if problem:
                raise ValidationError({"slug": problem})

    def data_left(self) -> str | None:
        """Why the row may not be deleted yet (None: it may): the retired-slugs record, DynamoDB (events tables
        among the declared parts), the search index, then every other place a team leaves traces
        (``tracker.services.team_leftovers``: job checkpoints and results, the admin log, Redis, files)."""
        retired = RetiredSlug.objects.filter(slug=self.slug).first()
        if retired is not None and retired.reason == RetiredSlug.Reason.OFFBOARDING:
            return f"The offboarding of {self.slug} has not finished; run it to its end first."
        if ddb_tenants.tenant_has_data(
            self.slug, score_shards=settings.LEADERBOARD_SHARDS, event_shards=settings.EVENTS_SHARDS
        ):
            return (
                f"DynamoDB still holds data of {self.slug}: offboard it first "
                f"(manage.py offboard_tenant {self.slug}, or the admin action), then delete the tenant."
            )
        from tracker.search.indexing import tenant_has_documents  # the search app's models load after these

        if tenant_has_documents(self.slug):
            return (
                f"The search index still holds documents of {self.slug}: offboard it first "
                f"(manage.py offboard_tenant {self.slug}, or the admin action), then delete the tenant."
            )
        from tracker.services import offboarding, team_leftovers  # services import these models

        team = team_leftovers.Team(self.slug, offboarding_job=offboarding.offboarding_job_name(self.slug))
        try:
            places = [place for place, count in team_leftovers.left(team).items() if count]
        except RedisError:
            return f"Redis is not answering, so whether it still holds traces of {self.slug} is unknown; try again."
        if places:
            return (
                f"{', '.join(places).capitalize()} still hold traces of {self.slug}: offboard it first "
                f"(manage.py offboard_tenant {self.slug}, or the admin action), then delete the tenant."
            )
        return None


class RetiredSlug(models.Model):
    """A slug that was offboarded or deleted: never given to a tenant again. Outlives its Tenant row."""

    class Reason(models.TextChoices):
        OFFBOARDING = "offboarding", "Offboarding under way"
        OFFBOARDED = "offboarded", "Offboarded (exported, then deleted)"
        DELETED = "deleted", "Tenant deleted"

    slug = models.SlugField(max_length=50, unique=True)
    reason = models.CharField(max_length=12, choices=Reason.choices)
    retired_at = models.DateTimeField(auto_now_add=True)
    offboarded_at = models.DateTimeField(null=True, blank=True)
    archive = models.CharField(max_length=200, blank=True, help_text="where the exported data is")
    report = models.JSONField(default=dict, blank=True, help_text="the last offboarding run's report")

    class Meta:
        ordering = ["-retired_at"]

    def __str__(self) -> str:
        return f"{self.slug} ({self.get_reason_display()})"


def slug_unavailable(slug: str) -> str | None:
    """Why ``slug`` cannot be given to a new tenant (None: it can): ``tenant_has_data``, ≤ 0.5 RCU a probe.

    A free slug costs every declared probe (≈ 16 + score shards + days × event shards of each events table).
    """
    retired = RetiredSlug.objects.filter(slug=slug).first()
    if retired is not None:
        return (
            f"The slug “{slug}” belonged to a tenant that was {retired.get_reason_display().lower()} "
            f"on {retired.retired_at:%Y-%m-%d}; slugs are never reused. Choose another."
        )
    if ddb_tenants.tenant_has_data(slug, score_shards=settings.LEADERBOARD_SHARDS, event_shards=settings.EVENTS_SHARDS):
        return f"DynamoDB still holds data under the slug “{slug}” (a tenant removed earlier); choose another."
    from tracker.search.indexing import tenant_has_documents  # the search app's models load after these

    if tenant_has_documents(slug):
        return f"The search index still holds documents under the slug “{slug}”; choose another."
    return None


@receiver(post_delete, sender=Tenant)
def _retire_slug(sender: type[Tenant], instance: Tenant, **kwargs: Any) -> None:
    RetiredSlug.objects.get_or_create(slug=instance.slug, defaults={"reason": RetiredSlug.Reason.DELETED})


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


class InvitationQuerySet(models.QuerySet["Invitation"]):
    def withdraw_open(self) -> int:
        """Withdraw those of these invitations that are neither used nor withdrawn; how many."""
        return self.filter(used_at__isnull=True, withdrawn_at__isnull=True).update(withdrawn_at=timezone.now())


class Invitation(models.Model):
    """A one-use invitation into a team with a role: its link carries a signed, expiring token of ``key``.

    The link itself is never stored (only shown once to the owner who made it); ``used_at`` makes
    it one-use, ``withdrawn_at`` lets an owner take it back, and the signature's timestamp bounds
    its age (tracker.services.team.INVITATION_MAX_AGE). It lives only as long as its creator's
    right: the receivers below withdraw a person's open invitations when they stop being an owner
    of the team (role changed, removed, left, account deactivated or deleted), offboarding withdraws
    and deletes all of the team's (both kinds), and accepting checks both again under lock (tracker.services.team).
    """

    key = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    email = models.EmailField(blank=True, help_text="whom it was meant for (a note for the owners)")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"invitation to {self.tenant} as {self.role}"


# An invitation is worth its creator's right: once they are no longer an owner of the team, their open
# invitations are withdrawn — whoever makes the change (the team page, the admin, a script).


@receiver(post_save, sender=Membership)
def _withdraw_when_no_longer_owner(sender: type[Membership], instance: Membership, **kwargs: Any) -> None:
    if instance.role != Role.OWNER:
        Invitation.objects.filter(tenant_id=instance.tenant_id, created_by_id=instance.user_id).withdraw_open()
        PersonalInvitation.objects.filter(tenant_id=instance.tenant_id, created_by_id=instance.user_id).withdraw_open()


@receiver(post_delete, sender=Membership)
def _withdraw_when_out_of_the_team(sender: type[Membership], instance: Membership, **kwargs: Any) -> None:
    Invitation.objects.filter(tenant_id=instance.tenant_id, created_by_id=instance.user_id).withdraw_open()
    PersonalInvitation.objects.filter(tenant_id=instance.tenant_id, created_by_id=instance.user_id).withdraw_open()


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def _withdraw_when_deactivated(sender: type[models.Model], instance: Any, **kwargs: Any) -> None:
    if not instance.is_active:
        Invitation.objects.filter(created_by_id=instance.pk).withdraw_open()
        PersonalInvitation.objects.filter(created_by_id=instance.pk).withdraw_open()


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL)
def _withdraw_when_deleted(sender: type[models.Model], instance: Any, **kwargs: Any) -> None:
    Invitation.objects.filter(created_by_id=instance.pk).withdraw_open()  # before created_by becomes NULL
    PersonalInvitation.objects.filter(created_by_id=instance.pk).withdraw_open()


class PersonalInvitationQuerySet(models.QuerySet["PersonalInvitation"]):
    def withdraw_open(self) -> int:
        """Withdraw those of these requests not answered or withdrawn yet; how many (invitees no longer see them)."""
        return self.filter(accepted_at__isnull=True, declined_at__isnull=True, withdrawn_at__isnull=True).update(
            withdrawn_at=timezone.now()
        )


class PersonalInvitation(models.Model):
    """An owner's "add this person" request: the person it names (if any) accepts or declines it.

    ``asked_for`` is what the owner typed (a username or an e-mail), kept for the owners' list whatever
    it matched; ``invitee`` is the account it reached — an exact username or a confirmed address — or
    None (nobody, several, an unconfirmed address, already in the team or already invited). Only
    accepting makes a membership, with ``role``. ``request_key`` is the form's idempotency key: the
    same submission twice makes one request. Like a link, it is worth its inviter's right: the
    receivers above withdraw it when the inviter stops being an owner, and accepting checks again.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="personal_invitations")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    asked_for = models.CharField(max_length=254)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations_received"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    request_key = models.CharField(max_length=40, null=True, blank=True, unique=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    objects = PersonalInvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["invitee", "created_at"], name="personal_invitation_invitee")]

    def __str__(self) -> str:
        return f"invitation of {self.asked_for} to {self.tenant} as {self.role}"


class ConfirmedEmail(models.Model):
    """An account's confirmed e-mail address (lower-cased): one account per address.

    The account's address counts as confirmed only while ``user.email`` is this address; changing
    it (anywhere, the admin included) leaves it unconfirmed until its new link is followed, and the
    row of the old address is deleted (``addresses.forget_replaced_address``, on User's save). Only a
    confirmed address is matched when owners invite, and receives notifications or password resets.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="confirmed_email")
    email = models.EmailField(unique=True)
    confirmed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.email} (confirmed)"


class ApiScope(models.TextChoices):
    """What an API token may do: read, write (what a member may), admin (what an owner may: webhooks)."""

    READ = "read", "Read"
    WRITE = "write", "Read and write"
    ADMIN = "admin", "Admin (webhooks)"


SCOPE_RANK = {ApiScope.READ: 0, ApiScope.WRITE: 1, ApiScope.ADMIN: 2}
SCOPE_ROLE = {ApiScope.READ: Role.VIEWER, ApiScope.WRITE: Role.MEMBER, ApiScope.ADMIN: Role.OWNER}  # the role it needs
TOKEN_NAME_MAX = 100
TOKEN_DEFAULT_DAYS = 90  # a token's life unless its maker says otherwise
TOKEN_MAX_DAYS = 365


def token_scopes(membership: Membership) -> list[str]:
    """The scopes a token of this membership may have, the lowest first: those its role allows (a viewer: read)."""
    return [scope.value for scope in ApiScope if membership.allows(SCOPE_ROLE[scope])]


class ApiToken(models.Model):
    """A person's API token for one team (``tracker.services.api_tokens``): a credential of one membership.

    Only the token's sha256 is kept (``key_hash``); the token itself is shown once. It leaves with its membership
    (CASCADE: a person removed from the team, and offboarding, which deletes the memberships in its transaction).
    ``scope`` is at most the role when created; the role is checked again on every call. ``last_used_at`` is
    written at most once a minute a token. ``request_key`` is the account page's form key: one token a submission.
    """

    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="api_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12, help_text="trk_ and the token's last 4 characters")
    name = models.CharField(max_length=TOKEN_NAME_MAX, blank=True)
    scope = models.CharField(max_length=5, choices=ApiScope.choices, default=ApiScope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    request_key = models.CharField(max_length=40, null=True, blank=True, unique=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.hint} ({self.scope}) of {self.membership_id}"
