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

Exactly once, in any order: every recorded change (``issue.created/edited/status/deleted``,
``comment.added/edited/deleted``) queues the Celery task ``search_index_change`` with the item's key
only; the task reads the item as it is now and writes only a newer version (``documents``). A
broker that does not answer at record time is logged and the change stands in DynamoDB; the
document catches up with the issue's next change, or with ``search_index check --fix``. For an
issue the same task first repairs its ``labels`` entries (``issues.issue_labels_reconcile``). Bulk
loads (imports, the demo) record no change events, so they rebuild their projects when they finish.
Offboarding deletes the team's documents (derived: not archived), and a Tenant row is not
deleted, nor its slug given again, while any are left.

SQLite and two writers: the web process and the Celery worker write the same file. WAL mode
(``apps``), a 20 s busy timeout and ``transaction_mode=IMMEDIATE`` (``tracker/settings/base/database.py``):
readers never wait, two writers never deadlock upgrading a read, and a task that still finds the
database locked is retried like a DynamoDB hiccup. One machine's SQLite takes thousands of small
writes a second; a deployment with several web machines uses PostgreSQL.

Why an engine, not DynamoDB entries: a "word entry" per (issue, word) makes every write pay for
every word (a 10 KB description is ~1,500 words: hundreds of WCU an edit; a prefix needs an entry
per prefix, 4–6× more), relevance needs every entry of every word read, and a team's entries sit
under few keys (the old ``terms`` table put 81–83 % of a burst's writes on one team's key). An
inverted index does this work once, on one machine, for nothing per request:

                        per write (an edit: 6 title words,        per search
                        a 1 KB description)
    old ``terms``       6 entries rewritten in the issue's        1 Query of the longest word's entries,
    entries             transaction: 12 WCU (of a 20 WCU edit)    2–4 RCU; no prefixes, descriptions,
                                                                  comments or ranking
    the engine (now)    0 WCU; the task: 1 GetItem (1 RCU) + one  1 SQL statement + 1 BatchGetItem of the
                        UPDATE (0.4–0.6 ms median, ≤ 25 ms p95)   rows shown (0.5 RCU a row, ≤ 12.5 RCU)
    OpenSearch          0 WCU; a stream record per change + an    1 HTTPS query (≈ 10–30 ms) + the same
                        indexing call                             BatchGetItem

The path to OpenSearch, when one database's index is not enough (many machines, tens of millions
of documents, typo tolerance, languages): enable a DynamoDB Stream (``NEW_IMAGE``) on ``issues``
and ``comments``; a Lambda (or a Celery consumer through Kinesis), or zero-ETL OpenSearch
Ingestion, turns each record into the same document — ``_id`` = ``<tenant>#<PROJECT>#<n>[#<comment>]``,
the DynamoDB version as OpenSearch's external version (the same "only newer" rule), ``tenant`` a
keyword every query filters on; a ``REMOVE`` or tombstone deletes. Backfill once with an export
to S3 (``ExportTableToPointInTime``, no RCU) and a bulk load, then switch ``engine.search`` to an
OpenSearch ``bool`` query with the same filters (``title^10``); ``queries.search_page``, the
BatchGetItem of the rows and the lists in DynamoDB stay as they are.
"""
