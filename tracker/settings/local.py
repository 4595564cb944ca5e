"""Development settings for ``make run``: debug on, a throwaway secret, loopback hosts."""

from tracker.env import ROOT, env

env.ENVIRON.setdefault("SECRET_KEY", "dev-only-not-secret-3f1c9a0e8b7d4c21a6e5")
env.ENVIRON.setdefault("DEBUG", "true")
# Webhooks may reach a receiver on this machine (production refuses loopback and private addresses).
env.ENVIRON.setdefault("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")

from tracker.settings.base import *  # noqa: E402,F403  (settings modules extend base)

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
# One INFO line per e-mail (to, subject) in the log, the whole message in var/mail/<time>-<id>.eml
EMAIL_BACKEND = env("EMAIL_BACKEND", default="tracker.mail.LogEmailBackend")
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", default=str(ROOT / "var" / "mail"))
# runserver's application: tracker.wsgi refuses DEBUG and this throwaway key (it is what a WSGI server serves)
WSGI_APPLICATION = "tracker.wsgi_dev.application"
