"""Offboarding a tenant: export every item and file, verify the archive, then delete — resumable, fenced.

Stages, kept in a checkpoint the caller stores (the job's item, written under its fencing token):

    export   every item of the tenant in every table, as each table package declares it (its ``TEAM_DATA``:
             ``tenants.declarations``; a package that declares nothing fails a test), and every attachment file
             into ``offboarding/<tenant>/<UTC stamp>/`` (``patterns.item_archive``), the manifest
             last; then the whole archive is read back and checked. Nothing is deleted before.
    delete   the archived keys, part by part, by BatchWriteItem (25 deletes a request, unprocessed
             ones again after the one full-jitter backoff). Before every batch the checkpoint
             (part, items done) is saved: that conditional write is also the fence, so a run
             superseded by a newer one stops before its next batch. Parts go in their declarations'
             ``delete_order``, the issues part last: while anything else is left, the tenant's projects
             still show it has data. The checkpoint names a part by its place in the archive's
             manifest, and every part keeps the name it had before the declarations, so a run resumes
             from a checkpoint written by an earlier version.
    files    the archived files are deleted from file storage (checkpointed the same way).
    archives every events archive (periods archived and dropped) is read, and each one that holds the
             team's events is rewritten without them: verified, a new manifest, swapped in (``archives``:
             the report lists per archive what was removed; a rerun finishes a swap cut short). A data file
             left without its manifest (an export cut short) holds events too: it is deleted, not an archive.
    check    the tenant's keys are read again; what is left (written after the export) is reported.

A run that dies anywhere resumes at its checkpoint: the archive is never rewritten once deletion
has begun, and deleting a key twice is harmless (DeleteItem of a missing item succeeds).

The team's own job items (``jobs`` written with the team: web imports' records and claims, bulk
loads' checkpoints) are a part like the others, found through the jobs table's ``by_tenant``
index; the offboarding job's own item is written without a team, so it is never among them.

Cost: the export reads (each declaration's ``find`` states its cost: ≈ 1 RCU per 4 KB of items plus a
minimum per Query; job items 0.5 RCU for the index Query + 1 RCU each); each delete is 1 WCU per KB
of the item plus 1 WCU per index entry it has — each declaration's ``index_entries`` (``delete_costs()``
lists them: orders 2, events 1, score items 1, a project's static item 1, a live issue 3 or 4,
inbox watchers and heads 1, a team's job items 1, idempotency records 1, comments, awards,
notifications, label entries and registry items 0, attachments in flight 1 and settled 0) — plus
1 WCU per 25 items for the checkpoint; the check reads the tenant's keys once more. The archives stage
makes no DynamoDB call: it reads every events archive once from archive storage, and writes (then reads back)
again only those that hold the team's events, plus one checkpoint write per archive. Each Query costs
its minimum even when empty: one per project, per issue (attachments, comments), per ``top``
shard, and per day × shard of each events table (a month's table: 31 × N; DynamoDB Local charges
0 for an empty Query, AWS its minimum). Measured on DynamoDB Local, 69 items (55 issues, 2 orders,
3 attachments + files, 3 scores, 6 events): 11.5 RCU to export, 83 WCU to delete (the floor),
12 WCU of checkpoints and fence; a team's three job items of one web import: 3.5 RCU to export,
6 WCU to delete.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.attachments import BlobStore
from ddbmodels.core import capacity, connection, retry, tables
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.core.team_data import IssueRef, Page, Shards, Team
from ddbmodels.labels import registry_forget
from ddbmodels.patterns import item_archive
from ddbmodels.patterns.time_series import ArchiveInvalid
from ddbmodels.tenants.archives import scrub_archives
from ddbmodels.tenants.declarations import delete_order, team_data

BATCH_SIZE = 25  # BatchWriteItem's maximum
DELETE_BACKOFF = retry.Backoff(attempts=12, base_s=0.05, cap_s=5.0)
ROOT = "offboarding"

Progress = Callable[..., None]


def delete_costs() -> dict[str, str]:
    """Each declared part's index entries per item deleted (the cost note above), in delete order."""
    return {d.part: d.index_entries for d in sorted(team_data(), key=lambda d: d.delete_order)}


def _stamp() -> str:
    return utcnow().strftime("%Y%m%dT%H%M%S%fZ")


def _key_names(table: str) -> list[str]:
    description = tables.describe_table(table)  # DescribeTable: free
    if description is None:
        return []
    return [k["AttributeName"] for k in description["KeySchema"]]


def _collect_files(pages: Iterator[Page], attribute: str, names: list[str]) -> Iterator[Page]:
    for page in pages:
        names.extend(item[attribute]["S"] for item in page if attribute in item)
        yield page


@capacity.access_pattern("tenants.export")
def export_tenant(
    tenant: str, store: ArchiveStore, blobs: BlobStore, folder: str, *, shards: Shards, progress: Progress
) -> dict[str, Any]:
    """Write the tenant's archive (items of every table, then files, then the manifest); the manifest."""
    parts: list[dict[str, Any]] = []
    exported = 0

    def write(part: str, table: str, pages: Iterator[Page]) -> None:
        nonlocal exported
        base = exported

        def counted(items: int) -> None:
            progress(stage="export", part=part, done=base + items)

        entry = item_archive.write_part(store, folder, part, pages, on_items=counted)
        entry.update(table=table, key=_key_names(table))
        parts.append(entry)
        exported += entry["item_count"]

    team = Team(tenant, shards)
    file_names: list[str] = []
    for declaration in team_data():  # the issues first: the parts keyed by issue derive their keys from them
        for part, table in declaration.physical_tables():
            pages = declaration.find(team, table)
            if declaration.file_attribute is not None:
                pages = _collect_files(pages, declaration.file_attribute, file_names)
            write(part, table, pages)
            if declaration.redacted:
                parts[-1]["redacted"] = declaration.redacted
    files = []
    for done, name in enumerate(sorted(set(file_names)), start=1):
        if not blobs.exists(name):
            continue  # a Failed or Detached attachment has no file
        with blobs.open_read(name) as source:
            files.append(item_archive.copy_file(store, folder, name, source))
        progress(stage="export files", done=done, total=len(file_names))
    parts.sort(key=lambda p: delete_order(p["part"]))
    manifest = {
        "tenant": tenant,
        "exported_at": utcnow().isoformat(),
        "projects": team.projects,
        "issues": [[p, n] for p, n in team.issues],
        "item_count": exported,
        "parts": parts,
        "files": files,
        "shards": {"scores": shards.scores, "events": shards.events},
    }
    item_archive.write_manifest(store, folder, manifest)
    return manifest


@capacity.access_pattern("tenants.delete")
def delete_keys(table: str, keys: list[dict[str, Any]]) -> None:
    """BatchWriteItem of ≤ 25 DeleteRequests — 1 WCU per KB of each item + its index entries; retried unprocessed.

    A table that no longer exists (an events table archived and dropped meanwhile) has nothing to delete.
    """
    client = connection.client()
    pending: dict[str, Any] = {table: [{"DeleteRequest": {"Key": key}} for key in keys]}
    for _ in retry.attempts(DELETE_BACKOFF):
        try:
            answer = client.batch_write_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL")
        except ClientError as error:
            if tables.error_code(error) == "ResourceNotFoundException":
                return
            raise
        pending = answer.get("UnprocessedItems") or {}
        if not pending:
            return
    raise Unavailable(f"BatchWriteItem left {len(pending.get(table, []))} deletes unprocessed", table=table)


def _batches(entry: dict[str, Any], store: ArchiveStore, skip: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(position of the batch's first item, its distinct keys) from item ``skip`` of the part on."""
    batch: dict[str, dict[str, Any]] = {}
    start = skip
    for position, item in enumerate(item_archive.read_part(store, entry)):
        if position < skip:
            continue
        key = {name: item[name] for name in entry["key"]}
        batch[json.dumps(key, sort_keys=True, default=str)] = key
        if position + 1 - start == BATCH_SIZE:
            yield start, list(batch.values())
            batch, start = {}, position + 1
    if batch:
        yield start, list(batch.values())


def offboard(
    tenant: str,
    *,
    store: ArchiveStore,
    blobs: BlobStore,
    shards: Shards,
    checkpoint: str | None,
    save_checkpoint: Callable[[str | None], None],
    progress: Progress,
) -> dict[str, Any]:
    """Export, verify, delete items, delete files, check — from ``checkpoint`` on; the report."""
    state: dict[str, Any] = json.loads(checkpoint) if checkpoint else {}
    meters = {stage: capacity.CapacityMeter() for stage in ("export", "delete", "check")}
    resumed = dict(state) if state else None
    if not state:
        folder = f"{ROOT}/{tenant}/{_stamp()}"
        with capacity.measure() as meters["export"]:
            export_tenant(tenant, store, blobs, folder, shards=shards, progress=progress)
        state = {"folder": folder, "stage": "delete", "part": 0, "done": 0}
    progress(stage="verify")
    check = item_archive.verify(store, state["folder"])
    manifest = item_archive.read_manifest(store, state["folder"])
    if not check.ok or manifest is None:
        raise ArchiveInvalid(f"the archive {state['folder']} does not verify: {'; '.join(check.problems)}")
    total = manifest["item_count"]
    deleted_before = sum(p["item_count"] for p in manifest["parts"][: state.get("part", 0)]) + state.get("done", 0)
    if state["stage"] == "delete":
        with capacity.measure() as meters["delete"]:
            for index, entry in enumerate(manifest["parts"]):
                if index < state["part"]:
                    continue
                for start, keys in _batches(entry, store, state["done"] if index == state["part"] else 0):
                    state.update(part=index, done=start)
                    save_checkpoint(json.dumps(state))  # the fence: a superseded run stops here
                    delete_keys(entry["table"], keys)
                    done = sum(p["item_count"] for p in manifest["parts"][:index]) + start + len(keys)
                    progress(stage="delete", part=entry["part"], done=done, total=total)
                state.update(part=index + 1, done=0)
            state.update(stage="files", done=0)
            save_checkpoint(json.dumps(state))
            registry_forget()  # the team's label registry is gone: this process must not trust its memory of it
    files = manifest["files"]
    if state["stage"] == "files":
        for index in range(state["done"], len(files)):
            if index % BATCH_SIZE == 0:
                save_checkpoint(json.dumps({**state, "done": index}))
            blobs.delete(files[index]["source"])
            progress(stage="delete files", done=index + 1, total=len(files))
        state.update(stage="archives", done=0)
        save_checkpoint(json.dumps(state))
    # What the archives stage did, kept in the checkpoint: a run resumed after it reports it too.
    rewritten: dict[str, dict[str, Any]] = state.get("archives", {})
    if state["stage"] == "archives":  # archived (dropped) periods: each archive rewritten without the team
        rewritten = scrub_archives(tenant, store, state, save_checkpoint=save_checkpoint, progress=progress)
        state.update(stage="check", done=0)
        save_checkpoint(json.dumps(state))
    progress(stage="check")
    with capacity.measure() as meters["check"]:
        left = remaining(tenant, [(p, int(n)) for p, n in manifest["issues"]], shards=shards)
    left["archives not rewritten"] = sum(not entry["ok"] for entry in rewritten.values())
    save_checkpoint(None)
    return {
        "tenant": tenant,
        "archive": state["folder"],
        "resumed_from": resumed,
        "exported": {"items": total, "by_part": {p["part"]: p["item_count"] for p in manifest["parts"]}},
        "files": len(files),
        "verified": check.as_dict(),
        "deleted_before_this_run": deleted_before if resumed else 0,
        "remaining": left,
        "archives_rewritten": rewritten,  # per archived table: removed, kept, per kind, digests before and after
        "capacity": {stage: {"rcu": round(m.rcu, 3), "wcu": round(m.wcu, 3)} for stage, m in meters.items()},
    }


@capacity.access_pattern("tenants.remaining")
def remaining(tenant: str, issues: list[IssueRef], *, shards: Shards) -> dict[str, int]:
    """Items of the tenant still stored, per declared part: the export's reads once more (issue keys from the
    archive and from the issues still stored); every period table's events under one ``events``."""
    team = Team(tenant, shards, issues=list(issues))
    left: dict[str, int] = {}
    for declaration in team_data():  # the issues first, as in the export
        left[declaration.part] = sum(
            len(page) for _, table in declaration.physical_tables() for page in declaration.find(team, table)
        )
        if declaration.lists_issues:
            team.issues[:] = sorted(set(team.issues))
    return left
