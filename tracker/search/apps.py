"""App config of the search index: SQLite connections get WAL and a busy timeout (web and worker share the file)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig


def _sqlite_concurrency(sender: Any, connection: Any, **kwargs: Any) -> None:
    """WAL (readers never wait for the one writer) and synchronous=NORMAL on a file database.

    The busy timeout is sqlite3's ``timeout`` (settings ``OPTIONS``): a writer waits for another
    process's write instead of failing with "database is locked".
    """
    if connection.vendor != "sqlite" or connection.settings_dict["NAME"] in (":memory:", ""):
        return
    if "mode=memory" in str(connection.settings_dict["NAME"]):
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")


class SearchConfig(AppConfig):
    name = "tracker.search"
    label = "search"
    verbose_name = "Search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        connection_created.connect(_sqlite_concurrency, dispatch_uid="tracker.search.sqlite_concurrency")
