"""Test settings: fast hashing, in-memory SQLite; services are started by tests/conftest.py."""

from tracker.env import env

env.ENVIRON.setdefault("SECRET_KEY", "test-only-not-secret")

from tracker.settings.base import *  # noqa: E402,F403  (settings modules extend base)

DEBUG = False
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = False
# django-axes stays installed (its tables, middleware and backend), but off: Django's test client
# logs in without a request, which Axes refuses. tests/tracker/test_security.py turns it on.
AXES_ENABLED = False
# DynamoDB Local on a busy machine (the suite's own threads, other suites) can take seconds to
# answer; a 2 s read timeout would then retry calls that were only slow. The tests of timeouts
# (tests/tracker/test_degrade.py) use the production defaults explicitly.
DYNAMODB_READ_TIMEOUT = 10.0
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # django.core.mail.outbox
# Recorded changes queue no search indexing: a real worker started by a test has a database of its
# own (in memory) without the index, and would spend itself on every test's backlog. The search
# tests turn it on and run the task in the test's process (tests/tracker/test_search.py).
SEARCH_INDEX_QUEUE = False

# The API: limits high enough that no test meets them unless it lowers them (tests/tracker/api/test_rate_limits.py);
# webhooks may reach a receiver on this machine.
API_RATE_LIMIT = "1000000/hour"
API_RATE_LIMIT_ANONYMOUS = "1000000/hour"
WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
