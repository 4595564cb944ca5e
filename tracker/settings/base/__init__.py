"""Settings shared by every environment. Values come from the environment through ``env``.

One module per concern; ``local``, ``production`` and ``test`` take them all with
``from tracker.settings.base import *``. A new setting goes in the module of its concern:

- ``core``      secret, DEBUG, hosts, installed apps, middleware, templates, language and time zone
- ``database``  Django's relational database (tenants, memberships); the full-text search index
- ``auth``      password rules, login URLs, login throttling (django-axes), password-reset limits
- ``security``  Content-Security-Policy (django-csp) and X-Frame-Options
- ``storage``   static files; file storages (uploads, archives, imports waiting for their job)
- ``cache``     Redis (address, timeouts, pause after a failure), the cache, cached project lifetime
- ``dynamodb``  endpoint, region, prefix, timeouts and retries, hot keys, activity-event tables
- ``celery``    broker, results, beat schedules, serialisation, timeouts, job locks
- ``features``  the product's own knobs: orders, leaderboard, attachments, imports (and teams')
- ``mail``      e-mail backend and sender, SITE_URL, page-link lifetime, the inbox and its e-mails
- ``logs``      LOGGING
- ``api``       the REST API's rate limits; webhooks: allowed networks, retry schedule, timeouts, log days
"""

from tracker.settings.base.api import *  # noqa: F403
from tracker.settings.base.auth import *  # noqa: F403
from tracker.settings.base.cache import *  # noqa: F403
from tracker.settings.base.celery import *  # noqa: F403
from tracker.settings.base.core import *  # noqa: F403
from tracker.settings.base.database import *  # noqa: F403
from tracker.settings.base.dynamodb import *  # noqa: F403
from tracker.settings.base.features import *  # noqa: F403
from tracker.settings.base.logs import *  # noqa: F403
from tracker.settings.base.mail import *  # noqa: F403
from tracker.settings.base.security import *  # noqa: F403
from tracker.settings.base.storage import *  # noqa: F403
