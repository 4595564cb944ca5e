"""Deployment defaults (issue 20, finding 12): production refuses DEBUG and published keys, the WSGI
server refuses a .env copied from .env.example, and seed_demo refuses production settings."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django.fixtures import SettingsWrapper

from tests.tracker.test_commands import ROOT, _copy_tree, _run, _secret
from tracker.env import PUBLISHED_SECRET_KEYS

PRODUCTION = "tracker.settings.production"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The application's source, without any .env."""
    return _copy_tree(tmp_path_factory.mktemp("tree"))


def _refused(result: object, words: str) -> None:
    stderr = result.stderr  # type: ignore[attr-defined]
    assert result.returncode != 0, stderr  # type: ignore[attr-defined]
    assert "django.core.exceptions.ImproperlyConfigured" in stderr
    assert words in stderr


@pytest.mark.parametrize("debug", ["true", "1", "on"])
def test_production_settings_refuse_debug(tree: Path, debug: str) -> None:
    result = _run(tree, "manage.py", "check", DJANGO_SETTINGS_MODULE=PRODUCTION, SECRET_KEY=_secret(),
                  ALLOWED_HOSTS="x.com", DEBUG=debug)  # fmt: skip
    _refused(result, "tracker.settings.production refuses DEBUG")


@pytest.mark.parametrize("key", [*sorted(PUBLISHED_SECRET_KEYS), " ", "django-insecure-" + "x" * 50])
def test_production_settings_refuse_published_secret_keys(tree: Path, key: str) -> None:
    result = _run(tree, "manage.py", "check", DJANGO_SETTINGS_MODULE=PRODUCTION, SECRET_KEY=key, ALLOWED_HOSTS="x.com")
    _refused(result, "tracker.settings.production refuses this SECRET_KEY")


def test_production_settings_load_with_debug_off_and_a_key_of_ones_own(tree: Path) -> None:
    """The refusals above can pass: DEBUG=false and a random key load (check --deploy: test_commands)."""
    result = _run(tree, "manage.py", "check", DJANGO_SETTINGS_MODULE=PRODUCTION, SECRET_KEY=_secret(),
                  ALLOWED_HOSTS="x.com", DEBUG="false")  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_the_local_and_test_settings_keys_and_env_example_s_are_the_published_ones() -> None:
    for source in ("tracker/settings/local.py", "tracker/settings/test.py", ".env.example"):
        text = (ROOT / source).read_text()
        assert any(key in text for key in PUBLISHED_SECRET_KEYS), source


def test_the_wsgi_server_refuses_a_dotenv_copied_from_env_example(tmp_path: Path) -> None:
    """``gunicorn tracker.wsgi`` with .env.example copied as it is: local settings, DEBUG on, change-me."""
    root = _copy_tree(tmp_path)
    shutil.copy2(ROOT / ".env.example", root / ".env")
    result = _run(root, "-c", "import tracker.wsgi")
    _refused(result, "tracker.wsgi (DJANGO_SETTINGS_MODULE=tracker.settings.local) refuses DEBUG")
    # With DEBUG off in the environment (it wins over .env) the published key is refused next.
    result = _run(root, "-c", "import tracker.wsgi", DEBUG="false")
    _refused(result, "refuses this SECRET_KEY")


def test_the_wsgi_server_starts_with_production_settings(tmp_path: Path) -> None:
    """No DJANGO_SETTINGS_MODULE, no .env: ``tracker.wsgi`` serves the production settings (it used to get
    the local ones, set first by tracker/celery.py, which the tracker package imports)."""
    root = _copy_tree(tmp_path)
    if importlib.util.find_spec("whitenoise") is None:  # requirements/prod.txt only: a pass-through stand-in
        (root / "whitenoise").mkdir()
        (root / "whitenoise" / "__init__.py").write_text("")
        (root / "whitenoise" / "middleware.py").write_text(
            "class WhiteNoiseMiddleware:\n"
            "    def __init__(self, get_response):\n        self.get_response = get_response\n"
            "    def __call__(self, request):\n        return self.get_response(request)\n"
        )
    code = "import tracker.wsgi; from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    result = _run(root, "-c", code, SECRET_KEY=_secret(), ALLOWED_HOSTS="x.com")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [PRODUCTION, "False"]


def test_seed_demo_refuses_production_settings(settings: SettingsWrapper, db: None) -> None:
    settings.PRODUCTION_SETTINGS = True
    with pytest.raises(CommandError, match="seed_demo refuses production settings"):
        call_command("seed_demo")
    assert not get_user_model().objects.filter(username="admin").exists()


@pytest.mark.parametrize("program", [["manage.py", "check"], ["-c", "import tracker.celery"]])
def test_manage_py_and_celery_default_to_the_production_settings(tree: Path, program: list[str]) -> None:
    """Without DJANGO_SETTINGS_MODULE (and no .env) nothing falls back to the local settings' DEBUG and key."""
    code = "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    args = ["manage.py", "shell", "-c", code] if program[0] == "manage.py" else ["-c", f"import tracker.celery; {code}"]
    result = _run(tree, *args, SECRET_KEY=_secret(), ALLOWED_HOSTS="x.com")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-2:] == [PRODUCTION, "False"]


def test_make_runs_web_server_serves_under_the_local_settings(tree: Path) -> None:
    """``make run``'s runserver loads settings.WSGI_APPLICATION: under the local settings (DEBUG on, the
    throwaway key) it must load, while ``tracker.wsgi`` (gunicorn's) refuses them (the test above).
    Found by starting ``make run`` in a fresh clone: the web server stopped with ImproperlyConfigured."""
    code = (
        "import django; django.setup()\n"
        "from django.core.servers.basehttp import get_internal_wsgi_application\n"
        "get_internal_wsgi_application()"
    )
    result = _run(tree, "-c", code, DJANGO_SETTINGS_MODULE="tracker.settings.local")
    assert result.returncode == 0, result.stderr
