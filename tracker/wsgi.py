"""WSGI entry point (gunicorn tracker.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

from tracker.env import load_dotenv

load_dotenv()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.production")
application = get_wsgi_application()
