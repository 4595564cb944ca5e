"""The search engine's tests: Django's test database (SQLite) and a throwaway PostgreSQL cluster.

``search_db`` starts PostgreSQL once a session (``devtools.services``), adds it to Django's
connections as ``search_pg`` and applies the search app's migration there (the executor, not
``migrate``: no other app's tables and no post-migrate handlers). Tests that use it run without
the ``db`` fixture (its test case would refuse a database it was not told of) and unblock
database access themselves. Skipped when PostgreSQL is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
from pytest_django.plugin import DjangoDbBlocker

from devtools import services

ALIAS = "search_pg"


@pytest.fixture(scope="session")
def search_db(django_db_blocker: DjangoDbBlocker) -> Iterator[str]:
    if services.postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package; `make deps-test` installs it)")
    server = services.start("postgres")
    try:
        with django_db_blocker.unblock():
            with connections["default"].cursor():  # only to make sure the test settings are loaded
                pass
            import psycopg

            with psycopg.connect(server.url, autocommit=True) as admin:
                admin.execute("CREATE DATABASE tracker_search")
            connections.settings[ALIAS] = connections.configure_settings(
                {
                    "default": dict(connections.settings["default"]),
                    ALIAS: {
                        "ENGINE": "django.db.backends.postgresql",
                        "NAME": "tracker_search",
                        "USER": "postgres",
                        "HOST": "127.0.0.1",
                        "PORT": str(server.port),
                    },
                }
            )[ALIAS]
            executor = MigrationExecutor(connections[ALIAS])
            executor.migrate([("search", "0001_initial")])
        yield ALIAS
    finally:
        if ALIAS in connections.settings:
            with django_db_blocker.unblock():
                connections[ALIAS].close()
            del connections.settings[ALIAS]
        server.stop()
