"""The search engine on its own documents: prefixes, any order, title first, filters, the tenant, any text.

Each test runs on SQLite (the test database, FTS5) here, and on a throwaway PostgreSQL cluster in
test_engine_postgres.py (marked ``postgres``), through the same ``engine.search``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tracker.search import engine
from tracker.search.engine import Filters
from tracker.search.models import GONE, SearchDocument

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Docs:
    """Documents written straight into one database, and searches of it."""

    def __init__(self, using: str) -> None:
        self.using = using

    def issue(
        self,
        n: int,
        title: str,
        body: str = "",
        *,
        tenant: str = "acme",
        key: str = "WEB",
        status: str = "open",
        labels: tuple[str, ...] = (),
        assignee: str = "",
        age_days: int = 0,
        gone: bool = False,
    ) -> None:
        SearchDocument.objects.using(self.using).create(
            tenant=tenant,
            project_key=key,
            number=n,
            scope=engine.scope_token(tenant),
            title=title,
            body=body,
            status=status,
            labels=f" {' '.join(labels)} " if labels else "",
            assignee=assignee,
            version=GONE if gone else 1,
            updated=T0 - timedelta(days=age_days),
            gone=gone,
        )

    def comment(self, n: int, body: str, *, tenant: str = "acme", key: str = "WEB", ck: str = "c1") -> None:
        SearchDocument.objects.using(self.using).create(
            tenant=tenant,
            project_key=key,
            number=n,
            comment_key=ck,
            scope=engine.scope_token(tenant),
            body=body,
            version=1,
            updated=T0,
        )

    def find(self, text: str, **filters: str) -> list[str]:
        found = engine.search(
            engine.query_words(text),
            Filters(tenant=filters.pop("tenant", "acme"), **filters),
            limit=50,
            using=self.using,
        )
        return [f"{key}-{n}" for key, n in found]


@pytest.fixture
def docs(db: None) -> Docs:
    """The test database (SQLite, FTS5); tests/search/test_engine_postgres.py gives the same tests PostgreSQL."""
    return Docs("default")


def test_words_match_as_prefixes_in_any_order(docs: Docs) -> None:
    docs.issue(1, "Deploy pipeline stalls on staging")
    docs.issue(2, "Checkout button is grey")
    assert docs.find("deplo") == ["WEB-1"]
    assert docs.find("pipe DEPLOY") == ["WEB-1"]
    assert docs.find("stag deplo pipeline") == ["WEB-1"]
    assert docs.find("eploy") == []  # a prefix, not any part of a word
    assert docs.find("deploy checkout") == []  # every word, in one document


def test_a_one_letter_word_is_a_word_of_its_own_not_a_prefix(docs: Docs) -> None:
    # as a prefix, "a" would expand to most of the index (170 ms at 100,000 documents)
    docs.issue(1, "Plan A for the launch")
    docs.issue(2, "Apple pay at checkout")
    assert docs.find("a") == ["WEB-1"]
    assert docs.find("ap") == ["WEB-2"]


def test_descriptions_and_comments_are_searched(docs: Docs) -> None:
    docs.issue(1, "Login is slow", "The quokka service times out")
    docs.issue(2, "Unrelated title")
    docs.comment(2, "Saw a zanzibar exception in the logs")
    assert docs.find("quok") == ["WEB-1"]
    assert docs.find("zanzi exception") == ["WEB-2"]


def test_title_matches_come_first_then_relevance_then_the_most_recent(docs: Docs) -> None:
    docs.issue(1, "Cache warmup", "the deploy step is slow", age_days=0)  # the word in the description
    docs.issue(2, "Deploy fails", age_days=30)  # in the title, but older
    docs.issue(3, "Something else", age_days=0)
    docs.comment(3, "after the deploy it broke")
    docs.issue(4, "Deploy docs", age_days=1)  # in the title, more recent than 2
    found = docs.find("deploy")
    assert found[:2] == ["WEB-4", "WEB-2"]
    assert sorted(found[2:]) == ["WEB-1", "WEB-3"]


def test_status_label_assignee_and_project_filter_the_issue_found_through_any_document(docs: Docs) -> None:
    docs.issue(1, "Crash on start", status="open", labels=("bug", "ios"), assignee="bob")
    docs.issue(2, "Crash on exit", status="closed", labels=("bug",), assignee="alice")
    docs.issue(3, "Quiet", status="open", labels=("bug_fix",))
    docs.comment(3, "a crash here too")
    docs.issue(4, "Crash in the API", key="API", status="open")
    assert sorted(docs.find("crash", status="open")) == ["API-4", "WEB-1", "WEB-3"]
    assert sorted(docs.find("crash", label="bug")) == ["WEB-1", "WEB-2"]
    assert docs.find("crash", label="bug_fix") == ["WEB-3"]  # "_" is a character here, not a wildcard
    assert docs.find("crash", label="bug", status="closed") == ["WEB-2"]
    assert docs.find("crash", assignee="bob") == ["WEB-1"]
    assert docs.find("crash", project_key="API") == ["API-4"]


def test_a_tenant_sees_only_its_own_documents(docs: Docs) -> None:
    docs.issue(1, "Secret roadmap", tenant="acme")
    docs.issue(1, "Secret roadmap", tenant="acme-2")
    docs.comment(2, "secret", tenant="globex")
    assert docs.find("secret", tenant="acme") == ["WEB-1"]
    assert docs.find("secret", tenant="acme-2") == ["WEB-1"]
    assert docs.find("secret", tenant="acm") == []
    assert docs.find("secret", tenant="initech") == []


def test_gone_documents_are_never_found(docs: Docs) -> None:
    docs.issue(1, "Old thing", gone=True)
    docs.issue(2, "Quiet")
    docs.comment(1, "old words")
    assert docs.find("old") == []


@pytest.mark.parametrize(
    "text",
    [
        '"deploy',
        "deploy*",
        "(deploy",
        "deploy) OR (",
        "NEAR(deploy pipeline)",
        "title:deploy",
        "AND OR NOT",
        "'; DROP TABLE search_document; --",
        "-deploy +pipeline",
        "^deploy",
        "deploy\\",
        "%_%",
        "déploy 😀 日本語",
        "x" * 300,
    ],
)
def test_any_text_is_a_search_never_an_error(docs: Docs, text: str) -> None:
    docs.issue(1, "Deploy pipeline and ORs and NEARs")
    assert isinstance(docs.find(text), list)
    assert docs.find("deploy") == ["WEB-1"]  # the table is still there


def test_punctuation_separates_words() -> None:
    assert engine.query_words("deploy-pipeline, v2.1!") == ["deploy", "pipeline", "v2", "1"]
    assert engine.query_words("a a A") == ["a"]
    assert engine.query_words("!!! ---") == []
    assert len(engine.query_words(" ".join(f"w{i}" for i in range(20)))) == engine.MAX_WORDS
