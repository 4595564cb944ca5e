"""WSGI entry point (gunicorn tracker.wsgi): production serving, so it refuses DEBUG and published keys.

A .env copied from .env.example names the local settings (DEBUG on, SECRET_KEY=change-me): the
WSGI application then refuses to start (ImproperlyConfigured) rather than serve them.
"""

import os

from django.core.wsgi import get_wsgi_application

from tracker.env import load_dotenv, refuse_unsafe_production

load_dotenv()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.production")
application = get_wsgi_application()


def _refuse_unsafe() -> None:
    from django.conf import settings

    what = f"tracker.wsgi (DJANGO_SETTINGS_MODULE={settings.SETTINGS_MODULE})"
    refuse_unsafe_production(debug=settings.DEBUG, secret_key=settings.SECRET_KEY, what=what)


_refuse_unsafe()
