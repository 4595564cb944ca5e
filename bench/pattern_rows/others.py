"""The workload of attachments, the leaderboard, events, counters, jobs and the board (``bench/patterns.py``)."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from ddbmodels import attachments, counters, events, jobs, scores
from ddbmodels import issues as ddb_issues
from ddbmodels.attachments import ATTACHED, IN_FLIGHT, IN_FLIGHT_SHARDS, AttachmentItem
from ddbmodels.core import tables
from ddbmodels.core.keys import shard_suffix
from ddbmodels.issues import STATUSES, CollectionItem, IssueItem
from ddbmodels.scores import POINTS
from devtools import bench
from devtools.bench import check
from pattern_rows.collections import collection
from pattern_rows.issue_writes import IssueWrite
from pattern_rows.workload import ASSIGNEES, AWARDED, PROJECT, STREAMS, TENANT, Workload

BOARD_INDEX = "project_status_updated"  # a board's columns (ddbmodels.issues.board)
TEXT: dict[str, Any] = {"tenant": TENANT, "project_key": PROJECT, "content_type": "text/plain", "by": "bench"}


def run_attachments(run: Workload, store_dir: str) -> None:
    def begin(name: str, number: int = 1) -> AttachmentItem:
        content = f"contents of {name}".encode()
        size, sha = attachments.digest(io.BytesIO(content))
        begun = attachments.attachment_begin
        return run("attachments.transition", begun, **TEXT, number=number, filename=name, size=size, sha256=sha)  # type: ignore[no-any-return]

    def transition(fn: Callable[..., AttachmentItem], item: AttachmentItem, **kwargs: Any) -> None:
        run("attachments.transition", fn, item, **kwargs)

    def shard(item: AttachmentItem) -> int:
        return shard_suffix(IN_FLIGHT.shard_key(item), IN_FLIGHT.shards)

    # Issue 1: one attachment through every transition, one left attached.
    detached = begin("detached.txt")
    transition(attachments.attachment_complete, detached)
    transition(attachments.attachment_detach_begin, detached, by="bench")
    transition(attachments.attachment_detach_complete, detached)
    kept = begin("kept.txt")
    transition(attachments.attachment_complete, kept)
    # Issue 2: what crashes leave behind, one per in_flight shard and state (ids are random, so
    # attachments are begun until each shard has one): stuck in Attaching (no file was stored),
    # then stuck in Detaching (the file was never deleted). Extras are simply completed.
    stuck: dict[int, AttachmentItem] = {}
    leaving: dict[int, AttachmentItem] = {}
    spare: list[AttachmentItem] = []
    for n in range(200):
        if len(stuck) == len(leaving) == IN_FLIGHT_SHARDS:
            break
        item = spare.pop() if spare and len(stuck) == IN_FLIGHT_SHARDS else begin(f"crashed-{n}.txt", number=2)
        if len(stuck) < IN_FLIGHT_SHARDS:
            if shard(item) in stuck:
                spare.append(item)  # completed, or left Detaching, once every shard has its stuck one
            else:
                stuck[shard(item)] = item
            continue
        transition(attachments.attachment_complete, item)
        if shard(item) not in leaving:
            transition(attachments.attachment_detach_begin, item, by="bench")
            leaving[shard(item)] = item
    check(len(stuck) == len(leaving) == IN_FLIGHT_SHARDS, "random attachment ids never covered every shard")
    for item in spare:
        transition(attachments.attachment_complete, item)

    store = attachments.LocalBlobStore(store_dir)

    def attach(name: str) -> AttachmentItem:
        return run(  # type: ignore[no-any-return]
            "attachments.attach",
            attachments.attach,
            store,
            **TEXT,
            number=1,
            filename=name,
            content=io.BytesIO(f"file {name}".encode()),
            max_bytes=1 << 20,
        )

    flowed = attach("flow-detached.txt")
    run("attachments.detach", attachments.detach, store, flowed, by="bench")
    attached = attach("flow-kept.txt")
    for item in (kept, attached):
        got = run("attachments.get", attachments.attachment_get_by_key, item.pk, item.attachment_id)
        check(got is not None and got.state == ATTACHED, f"{item.filename} is not attached")
    shown = run("attachments.list", attachments.attachment_list, tenant=TENANT, project_key=PROJECT, number=1)
    check({a.filename for a in shown} == {"kept.txt", "flow-kept.txt"}, "the list is not the attached files")

    soon = datetime.now(UTC) + timedelta(seconds=5)
    in_flight = run("attachments.in_flight", attachments.attachments_in_flight, before=soon)
    expected = {i.attachment_id for i in (*stuck.values(), *leaving.values())}
    check({i.attachment_id for i in in_flight} == expected, "in_flight did not find exactly the stuck items")
    report = run("attachments.reconcile", attachments.reconcile, store, before=soon, basis=in_flight)
    done = (report.rolled_back, report.detached, report.errors, report.moved_on)
    check(done == (IN_FLIGHT_SHARDS, IN_FLIGHT_SHARDS, 0, 0), f"reconcile did {report.as_dict()}")


def run_leaderboard(run: Workload, issues: list[IssueItem]) -> None:
    scored: set[str] = set()
    for issue in issues[:AWARDED]:
        row = (
            "leaderboard.award (member scored)" if issue.assignee in scored else "leaderboard.award (first of a member)"
        )
        change = run(row, scores.award_issue, issue)
        check(change.outcome is scores.Outcome.AWARDED, f"{issue.reference} was not awarded")
        scored.add(str(issue.assignee))
    award = run("leaderboard.award_get", scores.award_get, tenant=TENANT, project_key=PROJECT, number=3)
    check(award is not None and award.username == issues[2].assignee, "the award of issue 3 is not its assignee's")
    reopening = IssueWrite(TENANT, PROJECT, int(issues[0].number))
    reopened = run("issues.update", ddb_issues.issue_change_status, issues[0], to="open", basis=reopening)
    check(run("leaderboard.revoke", scores.revoke_issue, reopened).changed, "the award was not revoked")
    outcome = run("leaderboard.sync", scores.sync_issue, issues[1]).outcome
    check(outcome is scores.Outcome.ALREADY_AWARDED, f"sync of an awarded issue did {outcome}")
    run("leaderboard.add", scores.score_add, tenant=TENANT, username="newcomer", points=1)
    score = run("leaderboard.score", scores.score_get, tenant=TENANT, username=ASSIGNEES[1])
    check(score is not None and int(score.score) > 0, f"{ASSIGNEES[1]} has no score")
    expected = Counter[str]({"newcomer": 1})
    for issue in issues[1:AWARDED]:  # issue 1's award was revoked
        expected[str(issue.assignee)] += POINTS[issue.priority]
    top = run("leaderboard.top", scores.top_scores, tenant=TENANT, k=10)
    check({r.member: r.score for r in top} == dict(expected), f"the top is {top}, expected {dict(expected)}")
    above = run("leaderboard.rank", scores.rank_above, tenant=TENANT, score=1)
    check(above.count == sum(1 for s in expected.values() if s > 1), f"{above.count} members score more than 1")


# What tracker.text_diff.stored_diff keeps of a typical description edit (≈ 0.3 KB; at most 2 KB: its cap).
DESCRIPTION_DIFF = [
    "=Steps: open the cart ",
    "+on a phone",
    "=, press Pay ",
    "+now",
    "=. The button stays grey and nothing happens; the console says the checkout session ",
    "-timed out ",
    "+returned 502 ",
    "=after 30 seconds. Seen on Safari 17 and ",
    "~",
]


def run_events(run: Workload, count: int) -> None:
    """``count`` events of one issue's stream, and one more of a stream in each other ``by_day`` shard."""
    for i, stream in enumerate([STREAMS[0]] * count + STREAMS[1:]):
        run(
            "events.put",
            events.event_put,
            stream=stream,
            kind="issue.status",
            actor="bench",
            tenant=TENANT,
            data={"from": "open", "to": "in_progress", "n": i},
        )
    run(  # a description edit: the event keeps its word diff (tracker.text_diff.stored_diff's output for it)
        "events.put (description diff)",
        events.event_put,
        stream=STREAMS[0],
        kind="issue.edited",
        actor="bench",
        tenant=TENANT,
        data={"changed": {}, "description": True, "diff": DESCRIPTION_DIFF},
    )
    count += 1
    found = run("events.stream", events.stream_events, stream=STREAMS[0], basis=50)  # its default limit
    check(len(found) == min(count, 50), f"the stream holds {len(found)} events, not {count} (at most 50)")
    day = run("events.by_day", events.tenant_day_events, tenant=TENANT, day=datetime.now(UTC).date())
    check(len(day) == count + len(STREAMS) - 1, "the day misses events")  # (unless the run spans midnight)


def run_small_patterns(run: Workload) -> None:
    for _ in range(3):
        run("counters.next", counters.counter_next, "bench-patterns")
    check(run("counters.value", counters.counter_value, "bench-patterns") == 3, "the counter is not 3")
    token = run("jobs.fence", jobs.fence_acquire, "bench-patterns", "bench")
    run("jobs.fence", jobs.fence_check, "bench-patterns", token)
    run("jobs.checkpoint", jobs.checkpoint_save, "bench-patterns", token, "page-2")
    state = run("jobs.state", jobs.job_state, "bench-patterns")
    check(state is not None and state.checkpoint == "page-2", "the job's checkpoint was not kept")


def run_board(run: Workload) -> None:
    """The project's board: one Query a status, the open column cut to 10 so that it has a next page."""
    index = bench.unmetered(
        lambda: next(
            i for i in tables.describe(CollectionItem)["GlobalSecondaryIndexes"] if i["IndexName"] == BOARD_INDEX
        )
    )
    keys = tuple(k["AttributeName"] for k in index["KeySchema"])
    projected = index["Projection"]["NonKeyAttributes"]
    live = [i for i in collection() if i.deleted_at is None]
    sizes = {"open": 10}
    read: dict[str, list[int]] = {}
    for status in STATUSES:
        newest = sorted((i for i in live if i.status == status), key=lambda i: (i.updated_at, i.number), reverse=True)
        limit = {**ddb_issues.COLUMN_SIZES, **sizes}[status] + 1
        entries = [bench.index_entry(i.serialize(), ("pk", "n"), keys, projected) for i in newest[:limit]]
        read[status] = [bench.item_size(entry) for entry in entries if entry is not None]
    columns = run(
        "board.columns", ddb_issues.board_columns, tenant=TENANT, project_key=PROJECT, sizes=sizes, basis=read
    )
    shown = {status: [int(i.number) for i in page.issues] for status, page in columns.items()}
    check(len(shown["open"]) == 10 and columns["open"].next_key is not None, f"the open column is {shown['open']}")
    check(sorted(shown["resolved"]) == list(range(1, AWARDED + 1)), f"the resolved column is {shown['resolved']}")
    check(shown["in_progress"] == shown["closed"] == [], f"columns that should be empty: {shown}")


def run_palette(run: Workload) -> None:
    """The command palette's reads (tracker.selectors.palette): a key typed, one GetItem; words found by the
    search engine (no DynamoDB), then one BatchGetItem of the ≤ 5 rows it shows."""
    live = [int(i.number) for i in collection() if i.deleted_at is None]
    got = run("issues.get (palette: a key)", ddb_issues.issue_get, tenant=TENANT, project_key=PROJECT, number=live[0])
    check(got is not None and int(got.number) == live[0], "the palette's key read no issue")
    refs = [(PROJECT, number) for number in live[:5]]
    rows = run("issues.get_many (palette: 5 rows)", ddb_issues.issues_get_many, tenant=TENANT, refs=refs)
    check(len(rows) == 5, f"the palette's words read {len(rows)} rows, not 5")
