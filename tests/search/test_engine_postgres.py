"""The search engine's tests of test_engine.py, on a throwaway PostgreSQL cluster (tsvector + GIN, to_tsquery)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connections
from pytest_django.plugin import DjangoDbBlocker

from tests.search.test_engine import (  # noqa: F401  (the same tests, collected here with this module's ``docs``)
    Docs,
    test_a_one_letter_word_is_a_word_of_its_own_not_a_prefix,
    test_a_tenant_sees_only_its_own_documents,
    test_any_text_is_a_search_never_an_error,
    test_descriptions_and_comments_are_searched,
    test_gone_documents_are_never_found,
    test_status_label_assignee_and_project_filter_the_issue_found_through_any_document,
    test_title_matches_come_first_then_relevance_then_the_most_recent,
    test_words_match_as_prefixes_in_any_order,
)

pytestmark = pytest.mark.postgres


@pytest.fixture
def docs(search_db: str, django_db_blocker: DjangoDbBlocker) -> Iterator[Docs]:
    """PostgreSQL's ``search_pg`` database (no ``db`` fixture: its test case would refuse that database)."""
    with django_db_blocker.unblock():
        try:
            yield Docs(search_db)
        finally:
            with connections[search_db].cursor() as cursor:
                cursor.execute("TRUNCATE search_document")
