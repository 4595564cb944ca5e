"""Celery: broker, results, schedules, serialisation, timeouts; job locks."""

from __future__ import annotations

from tracker.env import env
from tracker.settings.base.cache import REDIS_TIMEOUT_SECONDS, REDIS_URL

# ---------------------------------------------------------------------------------------------
# Celery
# ---------------------------------------------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL)
# Results in Django's database (django-celery-results) so staff see them in the admin.
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default="django-db")
CELERY_RESULT_EXTENDED = True
CELERY_TASK_TRACK_STARTED = True
# Schedules in Django's database (django-celery-beat), editable in the admin; defaults are
# installed after migrate by tracker.schedules.install_defaults (never overwriting edits).
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# What a task prints on stdout reaches the worker's log as INFO lines (Celery's default says WARNING).
CELERY_WORKER_REDIRECT_STDOUTS_LEVEL = "INFO"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing a task (a staff member starting a job, a page queueing a refresh) must fail within
# seconds when Redis is down or frozen, not hang: socket timeouts on the broker's connections and
# one quick retry. Reads of BRPOP by the worker return within kombu's 1 s poll, well inside them.
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_TIMEOUT_SECONDS
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
    "socket_timeout": REDIS_TIMEOUT_SECONDS + 1,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
# The same timeouts when the result backend is Redis (CELERY_RESULT_BACKEND=redis://…): a job page
# reading a run's state then fails fast too, instead of waiting Celery's default 120 s.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_TIMEOUT_SECONDS
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_TIMEOUT_SECONDS + 1
# A job's Redis lock expires this long after the job's last sign of life (progress extends it),
# so a killed run blocks its job only briefly; the fencing token guards the rest.
JOB_LOCK_SECONDS = env.int("JOB_LOCK_SECONDS", default=300)
# An offboarded team's export (its own data) is deleted by the daily beat job this many days after offboarding.
OFFBOARDING_EXPORT_DAYS = env.int("OFFBOARDING_EXPORT_DAYS", default=30)
