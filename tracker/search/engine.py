"""The engine's SQL, per database: one statement finds a page of issues for some words, best first.

What a search means, on both engines:

* the words are the letters and digits of the text (``deploy-pipeline!`` is ``deploy`` and
  ``pipeline``), lowercased, at most ``MAX_WORDS``; each is a **prefix** (``deplo`` finds
  ``deploy``) and they may come in any order;
* a document matches when it has every word: an issue's title and description, or one comment;
* an issue is found when any of its documents matches; issues whose **title** has every word come
  first, then by relevance (FTS5's bm25 with the title weighted 10 to 1; PostgreSQL's ts_rank of the
  weighted vector), then the most recently updated;
* the tenant is a filter of every statement (a column, and on SQLite also a token of the indexed
  ``scope`` column, so the full-text index itself only yields the team's documents); the project,
  status, label and assignee are columns of the issue's document.

User text never reaches the engine's query syntax as such: each word is made of letters and
digits only and is quoted (FTS5 ``"word"*``, PostgreSQL ``'word':*``), so no input is a syntax error.

On PostgreSQL the tsqueries are constants in the statement (the planner then takes the GIN index)
and the issue's row is a LATERAL look-up by its unique key (a plain join hashed every row of the
team: a rare word took 43–74 ms at 100,000). A common prefix ranks every match, so its time grows
with the matches, not the page; DynamoDB's part stays one BatchGetItem of the rows shown.

Measured by ``bench/search.py`` (DynamoDB Local, SQLite in a file, one team of N issues + N/5
comments; requests = DynamoDB's + 1 for the statement; p50 of 10 calls on a shared 2-core machine):

    search                                  1,000               10,000             100,000
    a word only in one comment (zanzibar)   2 req, 0.5 RCU,     0.5 RCU, 0.7 ms    0.5 RCU, 3.6 ms
                                            0.6 ms
    a 4-letter prefix (kerb, 3 issues)      2 req, 1.5 RCU,     1.5 RCU, 0.8 ms    1.5 RCU, 5.0 ms
                                            0.7 ms
    a common prefix (chec, a full page)     2 req, 12.5 RCU,    12.5 RCU, 42 ms    12.5 RCU, 143 ms
                                            1.1 ms
    is:open label:bug chec                  1 req, 1.1 ms       1 req, 31 ms       2 req, 2.5 RCU, 86 ms
    an indexed write (GetItem + upsert)     1 RCU, 0.5 ms       1 RCU, 0.6 ms      1 RCU, 0.4 ms
    PostgreSQL 15, engine p50: rare word /  3.3 / 4.5 / 6.1 /   7.2 / 8.0 / 21 /   2.1 / 2.6 / 82 /
      prefix / common prefix / write        1.0 ms              0.6 ms             0.8 ms

Bulk indexing (``bulk_create``, triggers included): 2,100–5,600 documents/s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import connections

MAX_WORDS = 8
MAX_WORD_CHARS = 40
WORD_RE = re.compile(r"[^\W_]+")
TITLE_WEIGHT = 10.0  # FTS5 bm25 column weights: scope 0, title 10, body 1


def query_words(text: str) -> list[str]:
    """The words a search looks for: letters and digits, lowercased, without repeats, at most MAX_WORDS."""
    words: list[str] = []
    for word in WORD_RE.findall(text.lower()):
        word = word[:MAX_WORD_CHARS]
        if word not in words:
            words.append(word)
    return words[:MAX_WORDS]


def _star(word: str) -> str:
    """A word of two or more characters is a prefix; one letter is a word of its own (as a prefix it
    would expand to most of the index: 170 ms for ``a`` at 100,000 documents against 1 ms for ``kerb``)."""
    return "*" if len(word) >= 2 else ""


def scope_token(tenant: str) -> str:
    """One token that only this tenant's documents carry (the slug in hex: letters and digits only)."""
    return "t" + tenant.encode().hex()


@dataclass(frozen=True)
class Filters:
    tenant: str
    project_key: str | None = None
    status: str | None = None
    label: str | None = None
    assignee: str | None = None


def _like_label(label: str) -> str:
    escaped = label.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"% {escaped} %"


def _issue_filters(filters: Filters) -> tuple[str, list[Any]]:
    sql, params = "", []
    if filters.status:
        sql += " AND i.status = %s"
        params.append(filters.status)
    if filters.label:
        sql += " AND i.labels LIKE %s ESCAPE '\\'"
        params.append(_like_label(filters.label))
    if filters.assignee:
        sql += " AND i.assignee = %s"
        params.append(filters.assignee)
    return sql, params


def _sqlite(words: list[str], filters: Filters, limit: int, offset: int) -> tuple[str, list[Any]]:
    terms = " AND ".join(f'"{word}"{_star(word)}' for word in words)
    scope = f'scope : "{scope_token(filters.tenant)}"'
    anywhere, in_title = f"{scope} AND {{title body}} : ({terms})", f"{scope} AND title : ({terms})"
    project = " AND d.project_key = %s" if filters.project_key else ""
    project_params: list[Any] = [filters.project_key] if filters.project_key else []
    where, where_params = _issue_filters(filters)
    # Only constants and placeholders are formatted in; every value is a parameter.
    sql = f"""
        WITH hits AS MATERIALIZED (
            SELECT d.project_key AS p, d.number AS n, bm25(search_document_fts, 0.0, {TITLE_WEIGHT}, 1.0) AS score
            FROM search_document_fts CROSS JOIN search_document d ON d.id = search_document_fts.rowid
            WHERE search_document_fts MATCH %s AND d.tenant = %s{project}
        ), m AS (
            SELECT p, n, MIN(score) AS score FROM hits GROUP BY p, n
        ), t AS MATERIALIZED (
            SELECT DISTINCT d.project_key AS p, d.number AS n
            FROM search_document_fts CROSS JOIN search_document d ON d.id = search_document_fts.rowid
            WHERE search_document_fts MATCH %s AND d.tenant = %s AND d.comment_key = ''{project}
        )
        SELECT i.project_key, i.number FROM m
        CROSS JOIN search_document i ON i.tenant = %s AND i.project_key = m.p AND i.number = m.n
            AND i.comment_key = '' AND i.gone = 0{where}
        LEFT JOIN t ON t.p = m.p AND t.n = m.n
        ORDER BY t.n IS NOT NULL DESC, m.score, i.updated DESC, i.id DESC
        LIMIT %s OFFSET %s
    """  # noqa: S608
    params: list[Any] = [anywhere, filters.tenant, *project_params, in_title, filters.tenant, *project_params]
    return sql, [*params, filters.tenant, *where_params, limit, offset]


def _postgres(words: list[str], filters: Filters, limit: int, offset: int) -> tuple[str, list[Any]]:
    anywhere = " & ".join(f"'{word}'{':*' if _star(word) else ''}" for word in words)
    in_title = " & ".join(f"'{word}':{'*' if _star(word) else ''}A" for word in words)
    project = " AND d.project_key = %s" if filters.project_key else ""
    project_params: list[Any] = [filters.project_key] if filters.project_key else []
    where, where_params = _issue_filters(filters)
    # Only constants and placeholders are formatted in; every value is a parameter.
    sql = f"""
        WITH m AS (
            SELECT d.project_key AS p, d.number AS n,
                   MAX(ts_rank(d.search_vector, to_tsquery('simple', %s))) AS score,
                   bool_or(d.comment_key = '' AND d.search_vector @@ to_tsquery('simple', %s)) AS title_hit
            FROM search_document d
            WHERE d.tenant = %s{project} AND d.search_vector @@ to_tsquery('simple', %s)
            GROUP BY d.project_key, d.number
        )
        SELECT i.project_key, i.number FROM m
        CROSS JOIN LATERAL (
            SELECT * FROM search_document i
            WHERE i.tenant = %s AND i.project_key = m.p AND i.number = m.n AND i.comment_key = ''
            LIMIT 1
        ) i
        WHERE NOT i.gone{where}
        ORDER BY m.title_hit DESC, m.score DESC, i.updated DESC, i.id DESC
        LIMIT %s OFFSET %s
    """  # noqa: S608
    # The tsqueries are written out where they are used (not joined from a CTE) so the planner
    # sees a constant and takes the GIN index; the issue's row is a LATERAL look-up by its unique
    # key per issue found (a plain join was a hash join over every row of the tenant: 40 ms).
    params: list[Any] = [anywhere, in_title, filters.tenant, *project_params, anywhere, filters.tenant]
    return sql, [*params, *where_params, limit, offset]


def search(
    words: list[str], filters: Filters, *, limit: int, offset: int = 0, using: str = "default"
) -> list[tuple[str, int]]:
    """(project key, number) of the issues found, best first: ``limit`` of them from ``offset``. One statement."""
    if not words:
        return []
    connection = connections[using]
    build = {"sqlite": _sqlite, "postgresql": _postgres}.get(connection.vendor)
    if build is None:
        raise RuntimeError(f"full-text search needs SQLite or PostgreSQL, not {connection.vendor}")
    sql, params = build(words, filters, limit, offset)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(str(key), int(number)) for key, number in cursor.fetchall()]
