"""Full-text search at 1,000 to 100,000 issues: DynamoDB requests per search (the engine's call counted as one), time.

For each size in ``--sizes`` (default 1000,10000,100000) a team of its own (``bench-search-<size>``)
gets a project WEB of that many issues, bulk-loaded into DynamoDB (``issues.issues_put_many``, on
threads), one comment for every fifth issue (BatchWriteItem into ``comments``), and their search
documents written straight into the engine (``bulk_create``, the FTS5 triggers or PostgreSQL's
generated vector indexing them as a rebuild would). Titles come from a vocabulary where
``checkout`` is common (about 1 title in 10) and ``kerberos`` rare (3 titles at every size); one
comment, and nothing else, has the word ``zanzibar``; about 1 % of the issues are open and 5 %
labelled ``bug``.

Then each search is asked ``--repeat`` times through ``tracker.search.queries.search_page`` (one
unmetered call first), the way the search page asks it: a word only in a comment (``zanzibar``), a
4-letter prefix of a title word (``kerb``), a common prefix (``chec``), and the common prefix with
filters (``is:open label:bug chec``). Each is checked against what was loaded (the right issues),
and counted: DynamoDB requests (the capacity meter) + 1 for the engine's statement, RCU, and the
time of the engine's statement and of the whole call. Then the cost of an indexed write: the
Celery task's work (``indexing.index_change``: a consistent GetItem + the document's upsert) on
``--writes`` issues just edited, and the engine's part of it alone.

Floors (DynamoDB's part, the bench's own meter): a search is one BatchGetItem of the rows it shows,
each key its own read, 0.5 RCU per started 4 KB of the issue as stored (read back unmetered; nothing
when nothing is found); the indexing task one consistent GetItem, 1 RCU per started 4 KB.

**Done when**: every search finds its issues in ≤ 3 requests at every size, each at its floor. Printed on stdout: the
load, a table per size, the write costs, and last exactly one line of JSON. Exit 0 when every
search is right and within 3 requests, 1 when not, 2 when refused (no DYNAMODB_ENDPOINT_URL).
The engine is Django's database: SQLite in a temporary file unless ``DATABASE_URL`` names
PostgreSQL (the suite's small run uses the test database).

    python -m devtools.services run -- .venv/bin/python bench/search.py
    python -m devtools.services run -- .venv/bin/python bench/search.py --sizes 1000 --repeat 5
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels and tracker


def _django() -> None:
    """Django set up for the script (a temporary SQLite file unless DATABASE_URL says otherwise); as is in a test."""
    from django.apps import apps

    if apps.ready:
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.test")
    import django
    from django.conf import settings

    if not os.environ.get("DATABASE_URL"):
        path = Path(tempfile.mkdtemp(prefix="bench-search-")) / "search.sqlite3"
        settings.DATABASES["default"] = {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(path),
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    else:
        import environ

        settings.DATABASES["default"] = environ.Env.db_url_config(os.environ["DATABASE_URL"])
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


_django()

from django.db import connection  # noqa: E402

from ddbmodels import comments, issues  # noqa: E402  (after Django: tracker's app config points ddbmodels)
from ddbmodels.comments import CommentItem  # noqa: E402
from ddbmodels.core import batch, capacity, tables  # noqa: E402
from ddbmodels.core import connection as connection_ddb  # noqa: E402
from ddbmodels.core.threads import map_in_threads  # noqa: E402
from ddbmodels.issues import IssueItem, collection_key  # noqa: E402
from devtools import bench  # noqa: E402
from tracker.forms.issue_filters import parse  # noqa: E402
from tracker.search import engine, indexing, queries  # noqa: E402
from tracker.search.models import SearchDocument  # noqa: E402

WORDS = ["login", "export", "invoice", "report", "upload", "profile", "billing", "session", "cache", "webhook"]
COMMON = "checkout"  # about 1 title in 10
RARE = "kerberos"  # 3 titles at every size
ONLY_IN_A_COMMENT = "zanzibar"
CHUNK = 500
MAX_REQUESTS = 3
PAGE = 25  # queries.search_page's size: a first page shows at most this many issues
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def one_page_of(got: list[int], matching: set[int], page: int = PAGE) -> bool:
    """A first page's right rows: exactly min(page, matching) distinct issues, each one that matches.

    An empty or partial page is wrong whenever more issues match (so an empty result's zero floor is never judged
    as a search that found its page).
    """
    return len(got) == len(set(got)) == min(page, len(matching)) and set(got) <= matching


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("search", __doc__)
    bench.levels(parser, "--sizes", [1000, 10000, 100000], "issues in the project WEB, one team per size")
    bench.count(parser, "--repeat", 20, "measured calls of each search per size")
    bench.count(parser, "--writes", 50, "indexed writes measured per size")
    bench.count(parser, "--workers", 8, "threads loading issues")
    bench.count(parser, "--seed", 18, "random seed of the shape")
    return bench.quick_sizes(parser, parser.parse_args(argv), sizes=[1000], repeat=3, writes=10)


def stored_sizes(slug: str, numbers: list[int]) -> dict[int, int]:
    """Each issue's size as stored, read back UNMETERED (consistent GetItems no meter sees)."""
    client = connection_ddb.client()
    table = IssueItem.Meta.table_name

    def read() -> dict[int, int]:
        sizes = {}
        for n in numbers:
            key = {"pk": {"S": collection_key(slug, "WEB")}, "n": {"N": str(n)}}
            item = client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
            bench.check(item is not None, f"{slug} WEB-{n}: not stored")
            sizes[n] = bench.item_size(item or {})
        return sizes

    return bench.unmetered(read)


def shape(rng: random.Random, slug: str, size: int) -> tuple[list[IssueItem], list[CommentItem]]:
    """The issues and comments of a team of ``size``: the words placed as the docstring says."""
    rare = set(rng.sample(range(1, size + 1), 3))
    # 3 open bugs with the common word at every size (by chance 1 in 20,000: none at 1,000), from a Random of
    # their own so the rest of the shape is unchanged: "is:open label:bug + common prefix" must find a page.
    planted = set(random.Random(size).sample(range(1, size + 1), 6)) - rare
    made, notes = [], []
    for n in range(1, size + 1):
        words = rng.sample(WORDS, 3)
        if n in rare:
            words[0] = RARE
        elif rng.random() < 0.1:
            words[0] = COMMON
        labels = {"bug"} if rng.random() < 0.05 else {"docs"} if rng.random() < 0.1 else None
        when = T0 - timedelta(minutes=size - n)
        description = f"Seen by support. Steps: open the {rng.choice(WORDS)} page and wait."
        status = "open" if rng.random() < 0.01 else "closed"
        if n in planted:
            words[0], labels, status = COMMON, {"bug"}, "open"
        made.append(
            IssueItem(
                pk=collection_key(slug, "WEB"),
                number=n,
                title=f"{words[0].capitalize()} {words[1]} fails for {words[2]} users",
                description=description,
                status=status,
                priority="medium",
                assignee=None,
                reporter="bench",
                labels=labels,
                created_at=when,
                updated_at=when,
                version=1,
            )
        )
    commented = list(range(5, size + 1, 5))
    lone = rng.choice(commented)
    for n in commented:
        body = f"Looked at the {rng.choice(WORDS)} logs" + (f"; {ONLY_IN_A_COMMENT} again" if n == lone else ".")
        when = T0 - timedelta(minutes=size - n) + timedelta(seconds=30)
        notes.append(
            CommentItem(
                stream=comments.issue_stream(slug, "WEB", n),
                key=comments.new_sort_key(when),
                author="bench",
                body=body,
                version=1,
                created_at=when,
                updated_at=when,
            )
        )
    return made, notes


def load(run: bench.Run, size: int) -> dict[str, Any]:
    """DynamoDB (threads) and the engine (bulk) loaded for a team of ``size``; what it found where."""
    rng = random.Random(run.args.seed * 1_000_003 + size)
    slug = f"bench-search-{size:07d}"
    made, notes = shape(rng, slug, size)
    issues.project_create(tenant=slug, key="WEB", name=f"WEB ({size:,})", created_by="bench")
    started = time.perf_counter()
    chunks = [made[i : i + CHUNK] for i in range(0, len(made), CHUNK)]
    map_in_threads(issues.issues_put_many, chunks, workers=run.args.workers)
    rows = [batch.put(CommentItem.Meta.table_name, c.serialize()) for c in notes]
    batch.batch_write(rows)
    ddb_seconds = time.perf_counter() - started
    started = time.perf_counter()
    documents = [
        SearchDocument(tenant=slug, project_key="WEB", number=int(i.number), version=1, **indexing.issue_fields(i))
        for i in made
    ]
    for c in notes:
        number = int(c.stream.rsplit("#", 1)[1])
        fields = indexing.comment_fields(slug, c)
        documents.append(
            SearchDocument(tenant=slug, project_key="WEB", number=number, comment_key=c.key, version=1, **fields)
        )
    SearchDocument.objects.bulk_create(documents, batch_size=2000)
    with connection.cursor() as cursor:  # the planner's statistics, as autovacuum / PRAGMA optimize keep them
        cursor.execute("ANALYZE search_document" if connection.vendor == "postgresql" else "ANALYZE")
    engine_seconds = time.perf_counter() - started
    by = {
        "rare": sorted(int(i.number) for i in made if RARE in i.title.lower()),
        "comment": [int(c.stream.rsplit("#", 1)[1]) for c in notes if ONLY_IN_A_COMMENT in c.body],
        "common": {int(i.number) for i in made if COMMON in i.title.lower()},
        "open_bug_common": {
            int(i.number)
            for i in made
            if COMMON in i.title.lower() and i.status == "open" and "bug" in (i.labels or ())
        },
    }
    run.figures.setdefault("loads", []).append(
        {
            "size": size,
            "issues": len(made),
            "comments": len(notes),
            "documents": len(documents),
            "ddb_s": ddb_seconds,
            "engine_s": engine_seconds,
            "docs_per_s": int(len(documents) / max(engine_seconds, 1e-9)),
        }
    )
    return {"slug": slug, "by": by, "made": made}


def search(slug: str, q: str) -> tuple[list[int], capacity.CapacityMeter, float, float]:
    """(numbers found, the bench's meter of the call, engine ms, whole call ms) of one search as the page asks it."""
    query = parse(q)
    timed: list[float] = []
    real = engine.search

    def engine_timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            timed.append((time.perf_counter() - started) * 1000)

    queries.engine.search = engine_timed  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        with capacity.measure() as meter:
            page = queries.search_page(
                tenant=slug,
                text=query.words,
                project_key="WEB",
                status=query.status,
                label=query.label,
                assignee=query.assignee,
            )
        whole = (time.perf_counter() - started) * 1000
    finally:
        queries.engine.search = real  # type: ignore[assignment]
    return [int(i.number) for i in page.issues], meter, sum(timed), whole


def measure_size(run: bench.Run, size: int) -> None:
    team = load(run, size)
    slug, by = team["slug"], team["by"]
    cases = [
        ("word only in a comment", ONLY_IN_A_COMMENT, lambda got: got == by["comment"]),
        ("4-letter prefix of a title word", RARE[:4], lambda got: sorted(got) == by["rare"]),
        ("common prefix", COMMON[:4], lambda got: one_page_of(got, by["common"])),
        (
            "is:open label:bug + common prefix",
            f"is:open label:bug {COMMON[:4]}",
            lambda got: one_page_of(got, by["open_bug_common"]),
        ),
    ]
    bench.check(len(by["open_bug_common"]) >= 3, f"{size}: the shape has no open bug with {COMMON!r} to find")
    rows = []
    for name, q, right in cases:
        search(slug, q)  # unmetered: the first call warms the engine's pages
        samples = [search(slug, q) for _ in range(run.args.repeat)]
        got = samples[-1][0]
        bench.check(all(s[0] == got for s in samples), f"{size}: {name}: a repeat found other issues")
        requests = max(s[1].requests for s in samples) + 1  # + the engine's statement
        ok = right(got) and requests <= MAX_REQUESTS
        # DynamoDB's floor: one BatchGetItem of the rows shown, each key its own read (0.5 RCU per started 4 KB
        # of the issue as stored, read back unmetered); nothing when nothing is found.
        sizes = stored_sizes(slug, got)
        floor = bench.Cost(bench.batch_get_units(sizes[n] for n in got), 0, 1) if got else bench.Cost(0, 0, 0)
        total = capacity.CapacityMeter()
        for sample in samples:
            total.add(sample[1])
        n = len(samples)
        verdict = run.judge(f"{size:,}: {name}", bench.Cost.of(total), floor.times(n), per=n)
        rows.append(
            {
                **verdict.cells(),
                "floor": verdict.status,
                "search": name,
                "q": q,
                "found": len(got),
                "requests": requests,
                "rcu": max(s[1].rcu for s in samples),
                "engine_p50": statistics.median(s[2] for s in samples),
                "engine_p95": sorted(s[2] for s in samples)[int(0.95 * (len(samples) - 1))],
                "call_p50": statistics.median(s[3] for s in samples),
                "verdict": "ok" if ok else ("WRONG ROWS" if not right(got) else f"> {MAX_REQUESTS} requests"),
            }
        )
    run.figures.setdefault("searches", {})[str(size)] = rows
    run.figures.setdefault("writes", []).append(measure_writes(run, team, size))


def measure_writes(run: bench.Run, team: dict[str, Any], size: int) -> dict[str, Any]:
    """The indexing task's work on issues just edited: its time and RCU; and the engine's upsert alone."""
    rng = random.Random(size)
    picked = rng.sample(team["made"], min(run.args.writes, len(team["made"])))
    for issue in picked:
        issue.version = int(issue.version) + 1  # as an edit would, so each upsert really writes
        issue.title = f"{issue.title} (edited)"
    issues.issues_put_many(picked)
    task_ms = []
    with capacity.measure() as meter:
        for issue in picked:
            started = time.perf_counter()
            outcome = indexing.index_change(tenant=team["slug"], project_key="WEB", number=int(issue.number))
            task_ms.append((time.perf_counter() - started) * 1000)
            bench.check(outcome == "updated", f"index_change wrote {outcome}, not updated")
    # The task's floor: a consistent GetItem of each issue as stored (1 RCU per started 4 KB), read back unmetered.
    sizes = stored_sizes(team["slug"], [int(i.number) for i in picked])
    floor = bench.total(bench.Cost(bench.read_units(sizes[int(i.number)], consistent=True), 0, 1) for i in picked)
    verdict = run.judge(f"{size:,}: index_change (task)", bench.Cost.of(meter), floor, per=len(picked))
    engine_ms = []
    for issue in picked:
        issue.version = int(issue.version) + 1
        started = time.perf_counter()
        indexing.index_issue_item(issue)
        engine_ms.append((time.perf_counter() - started) * 1000)
    return {
        "size": size,
        "writes": len(picked),
        "task_p50": statistics.median(task_ms),
        "engine_p50": statistics.median(engine_ms),
        "engine_p95": sorted(engine_ms)[int(0.95 * (len(engine_ms) - 1))],
        "requests": meter.requests / len(picked),
        "rcu": meter.rcu / len(picked),
        **verdict.cells(),
    }


def measure(run: bench.Run) -> None:
    tables.create_all()
    for size in run.args.sizes:
        measure_size(run, size)
    wrong = [
        f"{size}: {row['search']}"
        for size, rows in run.figures["searches"].items()
        for row in rows
        if row["verdict"] != "ok"
    ]
    bench.check(not wrong, f"searches wrong or over {MAX_REQUESTS} requests: {', '.join(wrong)}")


LOAD_COLUMNS = bench.columns(
    "size:,d | issues:,d | comments:,d | documents:,d | DynamoDB s=ddb_s:.1f | engine s=engine_s:.1f "
    "| documents/s=docs_per_s:,d"
)
SEARCH_COLUMNS = bench.columns(
    "search:s | q:s | found:d | requests:d | rcu:.1f | engine p50 ms=engine_p50:.2f | engine p95 ms=engine_p95:.2f "
    "| call p50 ms=call_p50:.2f | verdict:s | @rcu | @req | floor:>"
)
WRITE_COLUMNS = bench.columns(
    "size:,d | writes:d | task p50 ms=task_p50:.2f | engine p50 ms=engine_p50:.2f | engine p95 ms=engine_p95:.2f "
    "| requests:.1f | rcu:.1f | @rcu | @req | floor=verdict:>"
)


def show(run: bench.Run) -> None:
    figures = run.figures
    bench.show_table(
        "Loads (DynamoDB: BatchWriteItem on threads; engine: bulk insert)", LOAD_COLUMNS, figures.get("loads")
    )
    for size, rows in (figures.get("searches") or {}).items():
        print(f"\nSearches in a project of {int(size):,} issues (requests: DynamoDB's + 1 for the engine)")
        print(bench.table(SEARCH_COLUMNS, rows), flush=True)
    bench.show_table(
        "Indexed writes (the task: consistent GetItem + upsert; the engine's upsert alone)",
        WRITE_COLUMNS,
        figures.get("writes"),
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = ", ".join(f"{size:,}" for size in args.sizes)
    return bench.run("search", args, measure, show, headline=f", sizes {sizes}, {{repeat}} calls each", tag="se")


if __name__ == "__main__":
    sys.exit(main())
