"""The one ``env`` object every setting is read from, and the optional ``.env`` file loader."""

from __future__ import annotations

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

ROOT = Path(__file__).resolve().parent.parent
env = environ.Env()

# Keys that are published (.env.example, the local and test settings): whoever has read the
# source can sign sessions, cursors and reset links with them. Production refuses them.
PUBLISHED_SECRET_KEYS = frozenset({"change-me", "dev-only-not-secret-3f1c9a0e8b7d4c21a6e5", "test-only-not-secret"})


def refuse_unsafe_production(*, debug: bool, secret_key: str, what: str) -> None:
    """ImproperlyConfigured if ``what`` (production settings, the WSGI server) would run with
    DEBUG on or a published, empty or Django placeholder SECRET_KEY."""
    if debug:
        raise ImproperlyConfigured(
            f"{what} refuses DEBUG: debug pages show settings and code to anyone. Unset DEBUG (or set "
            "DEBUG=false) and use DJANGO_SETTINGS_MODULE=tracker.settings.production; a .env copied "
            "from .env.example is for `make run` only."
        )
    if not secret_key.strip() or secret_key in PUBLISHED_SECRET_KEYS or secret_key.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            f"{what} refuses this SECRET_KEY: it is empty or published (.env.example, the local or test "
            "settings). Set SECRET_KEY to a long random value of your own, e.g. "
            "`python -c 'import secrets; print(secrets.token_urlsafe(60))'`."
        )


def load_dotenv() -> None:
    """Read ``.env`` at the repository root into the environment, if it exists.

    Called by the entry points (manage.py, the Celery app, WSGI) — never by the settings — so
    the test suite is not steered by a developer's local ``.env``. Variables already set in
    the environment win.
    """
    path = ROOT / ".env"
    if path.exists():
        environ.Env.read_env(str(path), overwrite=False)
