"""Full-text search of titles, descriptions and comments, in Django's own database.

SQLite FTS5 by default, PostgreSQL full text (a weighted ``tsvector`` with a GIN index) when
``DATABASE_URL`` is PostgreSQL. One document per issue (tenant, project, number, title,
description, and the columns the filters need: status, labels, assignee) and one per comment
(its issue and its body), each carrying the DynamoDB version it was made from.

    models      the document rows (``SearchDocument``); the migration adds the engine's index
    engine      the per-vendor SQL: match, rank, filter (the tenant always)
    indexing    documents from DynamoDB items: one change (the Celery task), rebuild, check,
                a tenant's removal (offboarding)
    queries     the search page's selector: the engine's page of references, then the rows
                read from DynamoDB (one BatchGetItem) so what is shown is current

DynamoDB stays the source of truth; the index is derived and can always be rebuilt from it
(``manage.py search_index rebuild``).
"""
