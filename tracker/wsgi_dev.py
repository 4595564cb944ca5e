"""The WSGI application ``manage.py runserver`` serves under the local settings (``make run``).

Not for a WSGI server: ``tracker.wsgi`` (what gunicorn serves) refuses DEBUG and published keys,
which are the point of the local settings, so they name this module as ``WSGI_APPLICATION`` instead.
"""

from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()
