"""Core: the secret, hosts, apps, middleware, templates, time zone."""

from __future__ import annotations

from tracker.env import ROOT, env

# ---------------------------------------------------------------------------------------------
# Core
# ---------------------------------------------------------------------------------------------
SECRET_KEY = env("SECRET_KEY")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=[])
ROOT_URLCONF = "tracker.urls"
WSGI_APPLICATION = "tracker.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

INSTALLED_APPS = [
    "tracker.apps.TrackerAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "django_celery_results",
    "axes",  # login throttling (below)
    "csp",  # Content-Security-Policy header (below)
    "ninja",  # the REST API (tracker.api): its Swagger page's static files, served from here (no CDN)
    "tracker",
    "tracker.search",  # full-text search documents (FTS5 / PostgreSQL full text) in this database
    "tracker.audit",  # the staff audit (raw item edits, job starts, offboarding) and its two permissions
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "tracker.middleware.CapacityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "tracker.middleware.ErrorPageMiddleware",  # it sees a view's exception first (Axes has no process_exception)
    "tracker.api.middleware.ApiMiddleware",  # /api/ only: request ids, rate limits, X-DynamoDB-*, problems not pages
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a locked-out login into its page
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ROOT / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tracker.context_processors.tenancy",
                "tracker.context_processors.inbox",
                "tracker.context_processors.saved_views",
            ],
        },
    },
]
