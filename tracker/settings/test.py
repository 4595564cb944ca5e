"""Test settings: fast hashing, in-memory SQLite; services are started by tests/conftest.py."""

from tracker.env import env

env.ENVIRON.setdefault("SECRET_KEY", "test-only-not-secret")

from tracker.settings.base import *  # noqa: E402,F403  (settings modules extend base)

DEBUG = False
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = False
