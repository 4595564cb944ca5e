"""Offboarding's ``archives`` stage: every events archive rewritten without the team's events.

Periods past retention were archived (``events/<table>/``) and their tables dropped; offboarding's
deletes cannot reach them, so each archive in the store is read and, when it holds any of the
team's events (``tenant`` = the team, or a stream or ``by_day`` key under ``<team>#``), rewritten
without them (``time_series.rewrite_archive``: verified, new manifest, swapped). A restore of any
archive afterwards brings none of the team's events back. The stage runs after the deletes, so an
archive written later (a live table exported after its team's events were deleted) holds none;
the store is listed again until no archive is left unread. A data file in a folder with no manifest (an
export cut short, or refused by the archive job's count check) is no archive and is deleted
(``delete_orphans``: the table it came from is still in DynamoDB). The removed events go into the export
handed to the team (``<export folder>/archived-events/<table>.jsonl.gz``, the archive's line format),
which expires with it.

Checkpoint (in the offboarding's): ``archives`` — per table what was done (removed and kept counts,
per event kind; digests before and after; never the team's content), and ``swap`` — the plan of a
rewrite between its checkpoint and the end of its swap, which a rerun finishes (``finish_swap``).

Cost: no DynamoDB call. Every archive in the store is read once (its data file, whole); one that
holds the team's events is written once more without them and read back once, and the team's events
are written into its export: store reads ≈ 2 × its size, writes ≈ its size. An archive without the
team is read once and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ddbmodels.core.keys import utcnow
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.patterns.time_series import finish_swap, rewrite_archive
from ddbmodels.patterns.time_series.archive_format import ARCHIVE_ROOT, MANIFEST_FILE

REASON = "offboarding"  # what the rewritten manifest says: never which team


def team_event(tenant: str) -> Callable[[Mapping[str, Any]], str | None]:
    """The predicate: an event item of ``tenant`` → its kind (the report counts per kind); any other → None."""
    prefix = f"{tenant}#"

    def kind_if_team(item: Mapping[str, Any]) -> str | None:
        ours = item.get("tenant", {}).get("S") == tenant or any(
            str(item.get(key, {}).get("S", "")).startswith(prefix) for key in ("s", "d")
        )
        return (item.get("kind", {}).get("S") or "event") if ours else None

    return kind_if_team


ORPHAN = "data file(s) with no manifest (an export cut short or refused): not an archive, deleted"


def archived_tables(store: ArchiveStore) -> list[str]:
    """Tables with an archive in the store (a manifest under ``events/<table>/``): one listing of ``events/``."""
    return sorted(_listing(store)[0])


def orphan_data_files(store: ArchiveStore) -> dict[str, list[str]]:
    """Data files in a table's folder that holds no manifest, by table: one listing of ``events/``."""
    manifests, data = _listing(store)
    return {table: names for table, names in sorted(data.items()) if table not in manifests}


def _listing(store: ArchiveStore) -> tuple[set[str], dict[str, list[str]]]:
    manifests: set[str] = set()
    data: dict[str, list[str]] = {}
    for name in store.list(f"{ARCHIVE_ROOT}/"):
        parts = name.split("/")
        if len(parts) == 3 and parts[2] == MANIFEST_FILE:
            manifests.add(parts[1])
        elif len(parts) == 3 and parts[2].startswith("data"):
            data.setdefault(parts[1], []).append(name)
    return manifests, data


def delete_orphans(store: ArchiveStore, done: dict[str, dict[str, Any]]) -> bool:
    """Delete every data file that no manifest names in its folder; each table's entry in ``done`` says so.

    Such a file is no archive: no restore or verification reads it (both start from the manifest), and the
    table it was exported from is still in DynamoDB — a table is dropped only once its manifest is written
    and verified, and a manifest is only deleted while its table is kept (the archive job's failure paths,
    which delete the data files too; killed between the two deletes, one is left). The next archive run
    exports that table again. Offboarding holds the events archives' lock (``tracker.jobs``), so no export
    is writing one meanwhile. True when anything was deleted.
    """
    orphans = orphan_data_files(store)
    for table, names in orphans.items():
        for name in names:
            store.delete(name)
        entry = done.get(table)
        if entry is None or entry.get("action") != "orphan_deleted":
            entry = done[table] = {"action": "orphan_deleted", "ok": True, "files_deleted": 0, "detail": ORPHAN}
        entry["files_deleted"] += len(names)
    return bool(orphans)


def scrub_archives(
    tenant: str,
    store: ArchiveStore,
    state: dict[str, Any],
    *,
    save_checkpoint: Callable[[str | None], None],
    progress: Callable[..., None],
) -> dict[str, dict[str, Any]]:
    """Rewrite every archive that holds the team's events, resuming ``state`` (the offboarding's checkpoint)."""
    done: dict[str, dict[str, Any]] = state.setdefault("archives", {})
    plan = state.pop("swap", None)
    if plan is not None:  # a run died inside a swap: finish it (or, stale, do that archive again)
        if finish_swap(store, plan):
            done[plan["table"]] = {**plan["summary"], "finished_after_a_restart": True}
        save_checkpoint(json.dumps(state))
    predicate = team_event(tenant)

    def todo_now() -> list[str]:
        if delete_orphans(store, done):  # an export cut short holds the team's events too
            save_checkpoint(json.dumps(state))
        # A table whose orphan was deleted and that has an archive now is read like any other.
        return [t for t in archived_tables(store) if t not in done or done[t]["action"] == "orphan_deleted"]

    while todo := todo_now():
        for index, table in enumerate(todo):
            progress(stage="archives", archive=table, done=len(done), total=len(done) + len(todo) - index)

            def before_swap(plan: dict[str, Any], table: str = table) -> None:
                rewrites = plan["manifest"]["rewrites"]
                summary = {"action": "rewritten", "ok": True, "removed": rewrites[-1]["removed"]}
                state["swap"] = {**plan, "summary": {**summary, "kept": plan["manifest"]["item_count"]}}
                save_checkpoint(json.dumps(state))  # the fence: a superseded run stops before the swap

            token = utcnow().strftime("%Y%m%dT%H%M%S%fZ")
            aside = f"{state['folder']}/archived-events/{table}.jsonl.gz" if state.get("folder") else None
            report = rewrite_archive(
                store, table, predicate, token=token, before_swap=before_swap, reason=REASON, removed_to=aside
            )
            state.pop("swap", None)
            entry = report.as_dict()
            done[table] = {
                key: entry[key]
                for key in (
                    "action",
                    "ok",
                    "items_before",
                    "removed",
                    "kept",
                    "removed_by",
                    "data",
                    "bytes_read",
                    "bytes_written",
                    "detail",
                )
            } | {"items_digest_before": report.items_digest_before, "items_digest_after": report.items_digest_after}
            if report.removed and aside:
                done[table]["exported_to"] = aside  # the team's own events of that period, in its export
            save_checkpoint(json.dumps(state))
    return done
