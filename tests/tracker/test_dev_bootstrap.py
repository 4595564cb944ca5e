"""make run: the banner comes last (after the web server and a worker), and lists a read-only staff login."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.test import Client

from tracker.env import ROOT
from tracker.management.commands import dev_bootstrap
from tracker.management.commands.dev_bootstrap import banner
from tracker.management.commands.seed_demo import DEMO_PASSWORD, demo_logins_create
from tracker.services.permissions import staff_can_change, staff_can_view


def test_the_banner_lists_every_demo_login_and_the_read_only_staff() -> None:
    text = banner()
    assert text.splitlines()[1] == "  Tracker is up: http://127.0.0.1:8000/"
    assert "    admin  tracker-demo   staff (admin)" in text
    assert "    staff  tracker-demo   staff, read-only (admin)" in text
    assert "    alice  tracker-demo   owner of acme, member of globex" in text


def test_the_banner_is_its_own_procfile_process_that_waits_for_the_web_server_and_worker() -> None:
    procfile = (ROOT / "Procfile").read_text().splitlines()
    assert "up: .venv/bin/python manage.py dev_bootstrap --banner" in procfile
    assert any(line.startswith("web:") and "runserver 127.0.0.1:8000" in line for line in procfile)
    assert dev_bootstrap.WEB_PORT == 8000


def test_waiting_for_the_worker_asks_until_one_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.celery import app

    answers = [[], [], [{"celery@host": {"ok": "pong"}}]]
    monkeypatch.setattr(app.control, "ping", lambda timeout: answers.pop(0))
    monkeypatch.setattr(dev_bootstrap.time, "sleep", lambda seconds: None)
    dev_bootstrap.wait_for_worker(timeout=60)
    assert answers == []


def test_waiting_for_a_worker_that_never_answers_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.celery import app

    monkeypatch.setattr(app.control, "ping", lambda timeout: [])
    with pytest.raises(TimeoutError, match="no Celery worker answered"):
        dev_bootstrap.wait_for_worker(timeout=0.01)


def test_the_read_only_staff_login_may_look_but_not_change(db: None) -> None:
    demo_logins_create()
    staff = authenticate(username="staff", password=DEMO_PASSWORD)
    admin = authenticate(username="admin", password=DEMO_PASSWORD)
    assert staff is not None
    assert admin is not None
    assert (staff.is_staff, staff.is_superuser) == (True, False)
    assert sorted(staff.get_all_permissions()) == ["tracker.view_tenant"]
    assert staff_can_view(staff)
    assert not staff_can_change(staff)
    assert admin.is_superuser
    assert staff_can_change(admin)
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200


def test_existing_logins_are_left_alone(db: None) -> None:
    demo_logins_create()
    demo_logins_create()
    from django.contrib.auth.models import User

    assert User.objects.filter(username="staff").count() == 1
