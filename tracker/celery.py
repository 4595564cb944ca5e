"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in tracker.tasks."""

import os

from celery import Celery

from tracker.env import load_dotenv

if "DJANGO_SETTINGS_MODULE" not in os.environ:
    # Started as a program (``celery -A tracker …``) rather than imported by a process that has
    # already chosen its settings (manage.py, WSGI, pytest): read .env like manage.py does.
    load_dotenv()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.local")

app = Celery("tracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
