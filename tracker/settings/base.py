"""Settings shared by every environment. Values come from the environment through ``env``."""

from __future__ import annotations

from csp.constants import NONE, SELF

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
    "tracker",
    "tracker.search",  # full-text search documents (FTS5 / PostgreSQL full text) in this database
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
            ],
        },
    },
]

# ---------------------------------------------------------------------------------------------
# Relational database: Django's own tables, tenants and memberships — never tracker data
# ---------------------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{ROOT / 'var' / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web process and the Celery worker (search indexing) write the same file: a writer waits
    # up to 20 s for the other (busy timeout) and takes the lock when its transaction begins, so two
    # writers never deadlock upgrading a read; tracker.search.apps turns on WAL (readers never wait).
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
# Full-text search (tracker/search): RCU per second `search_index rebuild|check` may read from DynamoDB
SEARCH_INDEX_RCU_PER_SECOND = env.float("SEARCH_INDEX_RCU_PER_SECOND", default=200.0)
# Every recorded change queues its search document's update (off in the test settings: see there)
SEARCH_INDEX_QUEUE = True

# ---------------------------------------------------------------------------------------------
# Auth
# ---------------------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# Login throttling (django-axes), for the site's login and the admin's alike: after
# AXES_FAILURE_LIMIT wrong passwords for one username from one address, that pair is refused
# (429, registration/locked_out.html) for AXES_COOLOFF_TIME. Per username *and* address, so a
# stranger cannot lock a colleague out from elsewhere; a success clears the count. One address
# is also refused, whatever the username, after AXES_ADDRESS_FAILURE_LIMIT failures across
# usernames (one password sprayed over many accounts). Attempts are kept in Django's database
# (no Redis needed). The address is the client's as TRUSTED_PROXY_COUNT proxies in front of the
# app report it in X-Forwarded-For (0: REMOTE_ADDR; set it to the number of proxies, or every
# user shares the proxy's address). `python manage.py axes_reset` lifts every lockout.
# tracker/login_throttle.py has the address and the per-address count.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "tracker.login_throttle.LoginThrottleHandler"
AXES_CLIENT_IP_CALLABLE = "tracker.login_throttle.client_ip"
AXES_FAILURE_LIMIT = 5
AXES_ADDRESS_FAILURE_LIMIT = 20
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Password reset (/accounts/password_reset/): at most PASSWORD_RESET_LIMIT requests per
# PASSWORD_RESET_WINDOW_SECONDS from one address, and as many for one e-mail address, counted in
# the cache (Redis; while it is down requests are not counted, and the log says so). Past the
# limit the request answers the same page as any other and sends no e-mail.
PASSWORD_RESET_LIMIT = 5
PASSWORD_RESET_WINDOW_SECONDS = 3600

# ---------------------------------------------------------------------------------------------
# Content-Security-Policy (django-csp) on every response: scripts only from our own origin — no
# inline script, no event-handler attribute (that code is in static/) — and styles from our own
# origin plus inline ones (Django's admin and a few of our pages write style attributes; a style
# cannot run code).
# ---------------------------------------------------------------------------------------------
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],  # no page is ever framed, by anyone: the same as X-Frame-Options below
    }
}
X_FRAME_OPTIONS = "DENY"  # for browsers without CSP's frame-ancestors; the two say the same

# ---------------------------------------------------------------------------------------------
# Static files
# ---------------------------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [ROOT / "static"]
STATIC_ROOT = ROOT / "var" / "static"

# ---------------------------------------------------------------------------------------------
# File storage: uploads (default) and archives of dropped event tables ("archive")
# ---------------------------------------------------------------------------------------------
ARCHIVE_S3_BUCKET = env("ARCHIVE_S3_BUCKET", default="")
if ARCHIVE_S3_BUCKET:
    _archive_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ARCHIVE_S3_BUCKET,
            "location": env("ARCHIVE_S3_PREFIX", default="tracker-archive"),
            "endpoint_url": env("ARCHIVE_S3_ENDPOINT_URL", default=None) or None,
            "file_overwrite": True,
            "default_acl": None,
        },
    }
else:
    _archive_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("ARCHIVE_DIR", default=str(ROOT / "var" / "archive")), "allow_overwrite": True},
    }
# Uploaded GitHub exports waiting for their import job ("imports"): where every worker can read them
# (the archive's S3 bucket under <prefix>/imports when it is set, a folder otherwise); each file is
# deleted once its import has finished.
if ARCHIVE_S3_BUCKET:
    _imports_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ARCHIVE_S3_BUCKET,
            "location": env("ARCHIVE_S3_PREFIX", default="tracker-archive") + "/imports",
            "endpoint_url": env("ARCHIVE_S3_ENDPOINT_URL", default=None) or None,
            "file_overwrite": True,
            "default_acl": None,
        },
    }
else:
    _imports_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("IMPORTS_DIR", default=str(ROOT / "var" / "imports"))},
    }
STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("MEDIA_ROOT", default=str(ROOT / "var" / "media"))},
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "archive": _archive_storage,
    "imports": _imports_storage,
}

# ---------------------------------------------------------------------------------------------
# Redis: the cache (hot DynamoDB reads) and Celery's broker
# ---------------------------------------------------------------------------------------------
REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6380/0")
# Seconds any Redis client (cache, capacity figures, job locks, Celery publishing) waits to
# connect or for an answer; a frozen Redis then costs a page one timeout, not a hang.
REDIS_TIMEOUT_SECONDS = env.float("REDIS_TIMEOUT_SECONDS", default=1.0)
# After a Redis failure, the cache and the capacity figures leave Redis alone this long (per
# process) and pages read DynamoDB directly (tracker.optional_redis).
REDIS_PAUSE_SECONDS = env.float("REDIS_PAUSE_SECONDS", default=10.0)
CACHES = {
    "default": {
        "BACKEND": "tracker.optional_redis.OptionalRedisCache",  # Redis errors are misses, never 500s
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "tracker",
        "TIMEOUT": 300,
        "OPTIONS": {
            "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
            "socket_timeout": REDIS_TIMEOUT_SECONDS,
            # JSON, not Django's default pickle: a writable Redis must not be able to run code
            "serializer": "tracker.optional_redis.JSONSerializer",
        },
    }
}
# Seconds a cached project (metadata, list) lives; every write invalidates it sooner.
PROJECT_CACHE_SECONDS = env.int("PROJECT_CACHE_SECONDS", default=300)

# ---------------------------------------------------------------------------------------------
# DynamoDB (ddbmodels reads the same variables; settings pass them on in AppConfig.ready)
# ---------------------------------------------------------------------------------------------
DYNAMODB_ENDPOINT_URL = env("DYNAMODB_ENDPOINT_URL", default=None) or None
AWS_DEFAULT_REGION = env("AWS_DEFAULT_REGION", default="us-east-1")
DYNAMODB_TABLE_PREFIX = env("DYNAMODB_TABLE_PREFIX", default="tracker-")
DYNAMODB_BILLING_MODE = env("DYNAMODB_BILLING_MODE", default="PAY_PER_REQUEST")
# How long a call waits to connect and for an answer, and how many attempts it makes in all
# (botocore "standard" retries with jittered backoff: throttling, 5xx, connection errors,
# timeouts). What is still failing after them is a 503 page with Retry-After; jobs retry later.
DYNAMODB_CONNECT_TIMEOUT = env.float("DYNAMODB_CONNECT_TIMEOUT", default=1.0)
DYNAMODB_READ_TIMEOUT = env.float("DYNAMODB_READ_TIMEOUT", default=2.0)
DYNAMODB_MAX_ATTEMPTS = env.int("DYNAMODB_MAX_ATTEMPTS", default=3)
# Hot keys (admin page /admin/ddb/hot-keys/): the share of DynamoDB requests whose partition keys
# are counted (0-1; each counts 1/rate), and how often a process ships its counts to Redis.
DYNAMODB_HOT_KEYS_SAMPLE_RATE = env.float("DYNAMODB_HOT_KEYS_SAMPLE_RATE", default=0.1)
DYNAMODB_HOT_KEYS_FLUSH_SECONDS = env.float("DYNAMODB_HOT_KEYS_FLUSH_SECONDS", default=5.0)

# Activity events: one table per period (<prefix>events-2026-11 for months), rotated and archived.
EVENTS_PERIOD = env("EVENTS_PERIOD", default="month")  # day | week | month
EVENTS_RETENTION = env.int("EVENTS_RETENTION", default=3)  # past periods kept in DynamoDB
EVENTS_SHARDS = env.int("EVENTS_SHARDS", default=4)  # write shards of the by-day index
EVENTS_BILLING_MODE = env("EVENTS_BILLING_MODE", default=DYNAMODB_BILLING_MODE)
EVENTS_HOT_THROUGHPUT = (env.int("EVENTS_HOT_RCU", default=10), env.int("EVENTS_HOT_WCU", default=10))
EVENTS_COLD_THROUGHPUT = (env.int("EVENTS_COLD_RCU", default=1), env.int("EVENTS_COLD_WCU", default=1))
EVENTS_ARCHIVE_SEGMENTS = env.int("EVENTS_ARCHIVE_SEGMENTS", default=4)

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
# ---------------------------------------------------------------------------------------------
# Orders: global order numbers from the counters table, orders sorted by time
# ---------------------------------------------------------------------------------------------
# "atomic" (default): UpdateItem ADD then PutItem — 4 WCU an order, no reads, no retries, as fast
# as the counter item takes writes; a put that fails after the ADD leaves a gap in the numbers.
# "gapless": consistent read + one transaction — 1 RCU + 8 WCU an order and retries under
# contention, but every number is used exactly once (for invoice-like numbering rules).
ORDER_NUMBERING = env("ORDER_NUMBERING", default="atomic")
# Write shards of the orders' by_time index (orders#0 … orders#N-1); raise it freely, never lower it.
ORDER_SHARDS = env.int("ORDER_SHARDS", default=4)
if ORDER_NUMBERING not in ("atomic", "gapless") or ORDER_SHARDS < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ORDER_NUMBERING must be atomic or gapless, and ORDER_SHARDS at least 1")
# ---------------------------------------------------------------------------------------------
# Leaderboard: points for resolved issues, a write-sharded top index, tops cached in Redis
# ---------------------------------------------------------------------------------------------
# Write shards of the scores table's top index (<tenant>#1 … #N); raise it freely, never lower it.
LEADERBOARD_SHARDS = env.int("LEADERBOARD_SHARDS", default=4)
# Seconds a cached top 10 / top 50 lives; every score change in the tenant drops it sooner.
LEADERBOARD_CACHE_SECONDS = env.int("LEADERBOARD_CACHE_SECONDS", default=30)
if LEADERBOARD_SHARDS < 1 or LEADERBOARD_CACHE_SECONDS < 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("LEADERBOARD_SHARDS must be at least 1, LEADERBOARD_CACHE_SECONDS at least 0")
# ---------------------------------------------------------------------------------------------
# Attachments: files in the "default" storage, their state in DynamoDB (sparse in_flight index)
# ---------------------------------------------------------------------------------------------
# Largest file a member may attach; bigger ones are cut off while the upload is parsed (never
# spooled to disk) and refused. Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count file parts,
# and FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) only decides memory versus a temporary file: both stay.
ATTACHMENT_MAX_BYTES = env.int("ATTACHMENT_MAX_BYTES", default=10 * 1024 * 1024)
# An attachment still Attaching or Detaching this long after it entered the state is stuck: the
# reconcile_attachments job (every 15 minutes) finishes or rolls it back from what storage holds.
ATTACHMENT_STUCK_SECONDS = env.int("ATTACHMENT_STUCK_SECONDS", default=600)
if ATTACHMENT_MAX_BYTES < 1 or ATTACHMENT_STUCK_SECONDS < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ATTACHMENT_MAX_BYTES and ATTACHMENT_STUCK_SECONDS must be at least 1")
# ---------------------------------------------------------------------------------------------
# Imports: an owner uploads a GitHub issues export for a new project (tracker/views/imports.py)
# ---------------------------------------------------------------------------------------------
# Largest export accepted; a bigger file is cut off while the upload is parsed (never spooled) and
# refused with a form error. Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count file parts.
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=20 * 1024 * 1024)
# WCU per second the import job may write (a token bucket): a fifth of one partition's 1,000 WCU/s,
# so a team moving in leaves the tables room for everyone's own writes.
IMPORT_MAX_WCU = env.float("IMPORT_MAX_WCU", default=200.0)
if IMPORT_MAX_BYTES < 1 or IMPORT_MAX_WCU <= 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("IMPORT_MAX_BYTES must be at least 1 and IMPORT_MAX_WCU above 0")
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
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["no_client_error_traceback"]}
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
