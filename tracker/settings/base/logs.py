"""Logging: one console handler, request lines said once, noisy libraries quieted."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Logging
# ---------------------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {
        "no_client_error_traceback": {"()": "tracker.log_filters.NoClientErrorTraceback"},
        "server_request_lines": {"()": "tracker.log_filters.ServerRequestLines"},
        "redact_invitation_tokens": {"()": "tracker.log_filters.RedactInvitationTokens"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["no_client_error_traceback", "redact_invitation_tokens"],
        }
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Django's default config gives `django` a console handler of its own besides the root's:
        # every request warning would print twice. No handler here: it propagates to the root once.
        "django": {"handlers": [], "level": env("LOG_LEVEL", default="INFO"), "propagate": True},
        # runserver's request lines: a 4xx/5xx is said once, by django.request (with the reason);
        # static files are DEBUG lines (shown with LOG_LEVEL=DEBUG).
        "django.server": {"handlers": [], "filters": ["server_request_lines"], "propagate": True},
        # PynamoDB announces at INFO that it found no global settings file, and django-axes its
        # version and settings on every start, then three lines per login (clean-up, reset, success);
        # failed logins and lock-outs are WARNINGs and still show.
        "pynamodb": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        # botocore says at INFO where it found credentials, once per new client (every process,
        # every thread's first call): one line of noise per client, nothing an operator acts on.
        "botocore": {"level": "WARNING"},
    },
}
