"""The one ``env`` object every setting is read from, and the optional ``.env`` file loader."""

from __future__ import annotations

from pathlib import Path

import environ

ROOT = Path(__file__).resolve().parent.parent
env = environ.Env()


def load_dotenv() -> None:
    """Read ``.env`` at the repository root into the environment, if it exists.

    Called by the entry points (manage.py, the Celery app, WSGI) — never by the settings — so
    the test suite is not steered by a developer's local ``.env``. Variables already set in
    the environment win.
    """
    path = ROOT / ".env"
    if path.exists():
        environ.Env.read_env(str(path), overwrite=False)
