"""Tracker: the Django project and app (settings, views, admin, Celery app and tasks)."""

from tracker.celery import app as celery_app

__all__ = ["celery_app"]
