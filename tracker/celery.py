"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in tracker.tasks."""

import os

from celery import Celery

from tracker.env import load_dotenv

load_dotenv()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.local")

app = Celery("tracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
