"""Time-series tables: one table per period, hot while current, archived and dropped when old.

``rotate`` runs on a schedule: it creates the next period's table ahead of time (and the
current one if missing), gives the current and next tables the *hot* provisioned throughput and
every older table the *cold* one. On-demand tables have no throughput to set and are left alone.

``archive`` takes every table of the family older than ``retention`` periods out of DynamoDB:

1. export — a parallel Scan (``segments`` threads, eventually consistent: 0.5 RCU per 4 KB)
   into ``events/<table>/data.jsonl.gz``, one line per item in DynamoDB JSON, the line format
   of AWS's own ExportTableToPointInTime (``{"Item": {...}}``), so numbers keep all 38 digits
   and binaries, sets and maps come back exactly (and AWS's ImportTable could read it);
2. manifest — ``events/<table>/manifest.json``: key schema, attribute definitions, indexes,
   item count, SHA-256 of the data file and an order-independent digest of the items. It is
   written last: its presence is the commit point of the export;
3. verify — read the archive back (count, SHA-256, digest against the manifest), then count
   the table with a strongly consistent ``Select=COUNT`` Scan (1 RCU per 4 KB): a straggler
   write after the export makes the counts differ and the table stays;
4. drop — ``fence()`` (the caller's ownership check, a conditional write) right before
   DeleteTable. Dropping costs nothing, whatever the table holds; deleting the items one by one
   would cost a write each (two here: the ``by_day`` index holds a copy of every item).

Killed at any step and run again, it converges: no manifest → export again; manifest present
and the table still there → verify and drop (nothing is exported twice when the archive is
good); table gone and the manifest verifies → "already archived". A table is never dropped
before its archive was read back and matched in the same run. ``restore`` recreates a table
from its archive (BatchWriteItem, 1 WCU per item ≤ 1 KB plus the index writes).
``rewrite_archive`` writes an archive again without chosen items (offboarding: a team's events),
read back and verified, under a new manifest that names the new data file (``rewriting``).
"""

from ddbmodels.patterns.time_series.archive_format import (
    ArchiveInvalid,
    HashingReader,
    HashingWriter,
    ItemsDigest,
    archive_names,
    data_name,
    item_line,
    line_item,
)
from ddbmodels.patterns.time_series.archiving import ArchiveReport, Fence, archive, archive_table
from ddbmodels.patterns.time_series.export import export_table
from ddbmodels.patterns.time_series.family import PeriodTables
from ddbmodels.patterns.time_series.periods import (
    PERIOD_KINDS,
    PeriodKind,
    check_kind,
    parse_period_id,
    period_bounds,
    period_id,
    period_shift,
    period_start,
)
from ddbmodels.patterns.time_series.restoring import RestoreReport, restore
from ddbmodels.patterns.time_series.rewriting import RewriteReport, finish_swap, rewrite_archive
from ddbmodels.patterns.time_series.rotation import DEFAULT_COLD, DEFAULT_HOT, RotateReport, rotate
from ddbmodels.patterns.time_series.tables import PeriodTable, count_items, list_period_tables
from ddbmodels.patterns.time_series.verify import verify_archive

__all__ = [
    "DEFAULT_COLD",
    "DEFAULT_HOT",
    "PERIOD_KINDS",
    "ArchiveInvalid",
    "ArchiveReport",
    "Fence",
    "HashingReader",
    "HashingWriter",
    "ItemsDigest",
    "PeriodKind",
    "PeriodTable",
    "PeriodTables",
    "RestoreReport",
    "RewriteReport",
    "RotateReport",
    "archive",
    "archive_names",
    "archive_table",
    "check_kind",
    "count_items",
    "data_name",
    "export_table",
    "finish_swap",
    "item_line",
    "line_item",
    "list_period_tables",
    "parse_period_id",
    "period_bounds",
    "period_id",
    "period_shift",
    "period_start",
    "restore",
    "rewrite_archive",
    "rotate",
    "verify_archive",
]
