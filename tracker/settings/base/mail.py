"""E-mail (backend, SMTP, sender), the site URL in links, page-link lifetime, the inbox and its e-mails."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Inbox: notifications of watched issues, e-mailed through Django's mail backend
# ---------------------------------------------------------------------------------------------
# SMTP by default (EMAIL_HOST, EMAIL_PORT, …); local settings log one line per e-mail and write
# it whole under var/mail (tracker.mail.LogEmailBackend), test settings keep them in memory
# (django.core.mail.outbox).
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
# Where tracker.mail.LogEmailBackend (and Django's filebased backend) write whole messages; empty: nowhere
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", default="")
EMAIL_HOST = env("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = 10  # seconds: a mail server that does not answer must not hold a worker
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Tracker <tracker@localhost>")
# Where the links in e-mails point
SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000")
# Seconds a page link (a list's "next"/"previous" cursor) stays valid: an older one is a 400 asking to
# open the list again (a day: a tab left open overnight still pages; a link shared last week does not)
CURSOR_MAX_AGE_SECONDS = env.int("CURSOR_MAX_AGE_SECONDS", default=24 * 3600)
# Seconds the header's unread count is cached per person (every change to it drops it sooner)
INBOX_COUNT_CACHE_SECONDS = env.int("INBOX_COUNT_CACHE_SECONDS", default=30)
# A person gets at most one e-mail per issue per this many seconds: the first notification opens
# the window, one e-mail lists everything the window gathered when it closes (0: at once)
NOTIFY_EMAIL_WINDOW_SECONDS = env.int("NOTIFY_EMAIL_WINDOW_SECONDS", default=300)
