"""The search documents and the engine's index over them: FTS5 on SQLite, a weighted tsvector + GIN on PostgreSQL.

The SQL differs per database, so it runs from RunPython with the schema editor's connection.
On SQLite the FTS5 table reads its text from ``search_document`` (external content) and three
triggers keep it in step; a later migration that rebuilds ``search_document`` (SQLite's way of
altering a table) must create the triggers again.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

SQLITE = [
    "CREATE VIRTUAL TABLE search_document_fts USING fts5(scope, title, body, content='search_document', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4')",
    "CREATE TRIGGER search_document_ai AFTER INSERT ON search_document WHEN new.gone = 0 BEGIN "
    "INSERT INTO search_document_fts(rowid, scope, title, body) VALUES (new.id, new.scope, new.title, new.body); END",
    "CREATE TRIGGER search_document_ad AFTER DELETE ON search_document WHEN old.gone = 0 BEGIN "
    "INSERT INTO search_document_fts(search_document_fts, rowid, scope, title, body) "
    "VALUES ('delete', old.id, old.scope, old.title, old.body); END",
    "CREATE TRIGGER search_document_au AFTER UPDATE ON search_document BEGIN "
    "INSERT INTO search_document_fts(search_document_fts, rowid, scope, title, body) "
    "SELECT 'delete', old.id, old.scope, old.title, old.body WHERE old.gone = 0; "
    "INSERT INTO search_document_fts(rowid, scope, title, body) "
    "SELECT new.id, new.scope, new.title, new.body WHERE new.gone = 0; END",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS search_document_au",
    "DROP TRIGGER IF EXISTS search_document_ad",
    "DROP TRIGGER IF EXISTS search_document_ai",
    "DROP TABLE IF EXISTS search_document_fts",
]
POSTGRES = [
    "ALTER TABLE search_document ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (CASE WHEN gone "
    "THEN ''::tsvector ELSE setweight(to_tsvector('simple', title), 'A') || "
    "setweight(to_tsvector('simple', body), 'B') END) STORED",
    "CREATE INDEX search_document_vector ON search_document USING GIN (search_vector)",
]
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS search_document_vector",
    "ALTER TABLE search_document DROP COLUMN IF EXISTS search_vector",
]


def _run(statements: dict[str, list[str]]) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        vendor = schema_editor.connection.vendor
        if vendor not in statements:
            raise RuntimeError(f"full-text search needs SQLite or PostgreSQL, not {vendor}")
        for statement in statements[vendor]:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    initial = True
    dependencies = []  # type: ignore[var-annotated]

    operations = [
        migrations.CreateModel(
            name="SearchDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("tenant", models.CharField(max_length=50)),
                ("project_key", models.CharField(max_length=10)),
                ("number", models.BigIntegerField()),
                ("comment_key", models.CharField(blank=True, default="", max_length=64)),
                ("scope", models.CharField(max_length=120)),
                ("title", models.TextField(blank=True, default="")),
                ("body", models.TextField(blank=True, default="")),
                ("status", models.CharField(blank=True, default="", max_length=20)),
                ("labels", models.CharField(blank=True, default="", max_length=400)),
                ("assignee", models.CharField(blank=True, default="", max_length=150)),
                ("version", models.BigIntegerField()),
                ("updated", models.DateTimeField()),
                ("gone", models.BooleanField(default=False)),
            ],
            options={"db_table": "search_document"},
        ),
        migrations.AddConstraint(
            model_name="searchdocument",
            constraint=models.UniqueConstraint(
                fields=("tenant", "project_key", "number", "comment_key"), name="search_doc_key"
            ),
        ),
        migrations.CreateModel(
            name="IndexCheckpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=120, unique=True)),
                ("data", models.JSONField(default=dict)),
                ("updated", models.DateTimeField(auto_now=True)),
            ],
            options={"db_table": "search_checkpoint"},
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE, "postgresql": POSTGRES}),
            _run({"sqlite": SQLITE_REVERSE, "postgresql": POSTGRES_REVERSE}),
        ),
    ]
