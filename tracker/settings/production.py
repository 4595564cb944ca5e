"""Production settings: no default secret, HTTPS only, static files through WhiteNoise.

They refuse to load (ImproperlyConfigured) with DEBUG on or a published SECRET_KEY
(``tracker.env.refuse_unsafe_production``), and ``seed_demo`` refuses them (PRODUCTION_SETTINGS).
"""

from tracker.env import env, refuse_unsafe_production
from tracker.settings.base import *  # noqa: F403  (settings modules extend base)
from tracker.settings.base import MIDDLEWARE

SECRET_KEY = env("SECRET_KEY")  # required: no default in production
DEBUG = False
refuse_unsafe_production(
    debug=env.bool("DEBUG", default=False), secret_key=SECRET_KEY, what="tracker.settings.production"
)
PRODUCTION_SETTINGS = True  # seed_demo (published logins) refuses to run
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

MIDDLEWARE = [
    MIDDLEWARE[0],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[1:],
]
STORAGES = {
    **STORAGES,  # noqa: F405  (default and archive storages from base)
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
