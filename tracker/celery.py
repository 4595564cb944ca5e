"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in tracker.tasks."""

import os
import time

from celery import Celery

from tracker.env import load_dotenv

if "DJANGO_SETTINGS_MODULE" not in os.environ:
    # Started as a program (``celery -A tracker …``) rather than imported by a process that has
    # already chosen its settings (manage.py, WSGI, pytest): read .env like manage.py does.
    load_dotenv()
# Production unless told otherwise (the environment, or .env: `make run` writes tracker.settings.local
# there). This module runs first in every process that imports the tracker package (manage.py and
# tracker.wsgi too), so this is their default as well: none of them falls back to DEBUG settings.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.production")

app = Celery("tracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def wait_for_worker(timeout: float) -> None:
    """Block until a Celery worker answers a ping (it consumes tasks from then on); TimeoutError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if app.control.ping(timeout=1.0):
            return
        time.sleep(0.3)
    raise TimeoutError(f"no Celery worker answered a ping within {timeout:.0f}s")
