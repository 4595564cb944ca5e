"""SQLite shared by the web process and the worker: a file database is in WAL mode and waits for the other writer."""

from __future__ import annotations

import threading
from pathlib import Path

from django.conf import settings
from django.db.backends.sqlite3.base import DatabaseWrapper


def file_database(path: Path, alias: str) -> DatabaseWrapper:
    options = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    return DatabaseWrapper({**settings.DATABASES["default"], "NAME": str(path), "OPTIONS": options}, alias=alias)


def test_a_file_database_is_in_wal_mode_and_two_writers_both_get_through(tmp_path: Path, db: None) -> None:
    path = tmp_path / "shared.sqlite3"
    web = file_database(path, "web")
    with web.cursor() as cursor:
        assert cursor.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        cursor.execute("CREATE TABLE t (n INTEGER)")
    web.close()
    errors: list[BaseException] = []

    def write(name: str, first: int) -> None:
        database = file_database(path, name)  # a connection per thread, as per process
        try:
            for n in range(first, first + 200):
                with database.cursor() as cursor:
                    cursor.execute("BEGIN IMMEDIATE")
                    cursor.execute("INSERT INTO t VALUES (%s)", [n])
                    cursor.execute("COMMIT")
        except BaseException as error:  # noqa: BLE001  (reported below)
            errors.append(error)
        finally:
            database.close()

    threads = [threading.Thread(target=write, args=(name, first)) for name, first in (("web", 0), ("worker", 1000))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []  # no "database is locked": each waits for the other (busy timeout)
    check = file_database(path, "check")
    with check.cursor() as cursor:
        assert cursor.execute("SELECT COUNT(*) FROM t").fetchone() == (400,)
    check.close()
