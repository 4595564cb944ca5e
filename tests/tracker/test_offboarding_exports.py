"""The offboarding export handed to the team expires OFFBOARDING_EXPORT_DAYS after offboarding (issue 20, finding 1)."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import issues
from tests.tracker.conftest import World
from tracker import tasks
from tracker.models import RetiredSlug
from tracker.schedules import DEFAULTS
from tracker.services import offboarding_exports


def _offboarded(world: World) -> RetiredSlug:
    issues.issue_create(tenant=world.slug, project_key="WEB", title="Quarterly plan", reporter=world.member.username)
    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    assert json.loads(out.getvalue())["result"]["finished"]
    return RetiredSlug.objects.get(slug=world.slug)


def _export_files(archive_dir: Path, slug: str) -> list[Path]:
    folder = archive_dir / "offboarding" / slug
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_the_export_is_kept_its_days_then_the_daily_job_deletes_it_and_says_so(
    world: World, other_world: World, archive_dir: Path, admin_client: Client, settings: SettingsWrapper
) -> None:
    settings.OFFBOARDING_EXPORT_DAYS = 30
    retired = _offboarded(world)
    kept = _offboarded(other_world)
    assert retired.offboarded_at is not None
    until = retired.offboarded_at + timedelta(days=30)
    assert _export_files(archive_dir, world.slug)
    page = admin_client.get("/admin/tracker/retiredslug/").content.decode()
    assert f"until {until:%Y-%m-%d %H:%M} UTC" in page

    assert offboarding_exports.delete_expired_exports(now=until - timedelta(minutes=1))["deleted"] == {}
    assert _export_files(archive_dir, world.slug)  # still within its days

    RetiredSlug.objects.filter(pk=kept.pk).update(offboarded_at=timezone.now() - timedelta(days=29))
    RetiredSlug.objects.filter(pk=retired.pk).update(offboarded_at=timezone.now() - timedelta(days=31))
    report = tasks.expire_offboarding_exports.apply().get()  # what beat starts daily
    assert report["status"] == "done"
    files = report["result"]["deleted"][world.slug]
    assert files > 0
    assert list(report["result"]["deleted"]) == [world.slug]  # 29 days: the other team's export stays

    assert _export_files(archive_dir, world.slug) == []
    assert not (archive_dir / "offboarding" / world.slug).exists()  # no folder named after the team either
    assert _export_files(archive_dir, other_world.slug)
    retired.refresh_from_db()
    assert retired.archive == ""
    assert retired.report["export_deleted"]["files"] == files
    assert retired.report["export_deleted"]["days"] == 30
    page = admin_client.get("/admin/tracker/retiredslug/").content.decode()
    assert "deleted on" in page
    assert "(30 days after offboarding)" in page


def test_the_daily_schedule_is_installed_by_default() -> None:
    task, cron, description = DEFAULTS["expire offboarding exports"]
    assert task == "tracker.tasks.expire_offboarding_exports"
    assert cron == {"minute": "30", "hour": "4"}
    assert "OFFBOARDING_EXPORT_DAYS" in description
