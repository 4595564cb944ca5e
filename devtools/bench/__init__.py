"""What the benchmark scripts under ``bench/`` share: the endpoint, arguments, the run, floors, output.

Its modules, all re-exported here (scripts write ``bench.run``, ``bench.Cost``, ``bench.check``…):
``arguments`` (the parser and its options), ``endpoint`` (where a run writes, its tables dropped),
``verdicts`` (``Run``, its figures and verdicts; ``check``), ``lifecycle`` (``run`` and its JSON line),
``tables`` (what a run prints), ``floors`` (DynamoDB's minimum of a figure against DynamoDB Local's),
``writers`` (threads under contention).

Each ``bench/*.py`` runs as a script (``make bench`` runs every one of them), so the shared parts
live here rather than beside them. A script builds its parser (``parser``, ``levels``), then hands
``run`` two functions: one that measures into a ``Run`` and one that prints it. ``run``:

1. calls ``connect``: it reads the application's variables (``DynamoSettings.from_env``), refuses
   to run without ``DYNAMODB_ENDPOINT_URL`` unless ``--allow-aws`` (exit 2), gives DynamoDB Local
   dummy credentials and points every model at a fresh prefix ``<DYNAMODB_TABLE_PREFIX>bench-<hex>-``;
2. measures; an exception becomes the run's error (an unexpected one with its traceback); every
   table under the prefix is deleted afterwards, whatever happened;
3. prints, then the notes of every capacity figure that is not exactly its floor, then ``finish``:
   the error on stderr, exactly one line of JSON on stdout, and the exit status (0 ok, 1 failed).

Floors (``Run.judge``): every capacity figure is compared with DynamoDB's own minimum, worked out
from AWS's pricing rules (``read_units``, ``write_units``, ``item_size``). Where DynamoDB Local
charges otherwise, the difference is a named ``Difference`` and both floors are printed; the ratio
(``× floor``) divides by Local's floor, the one the measurement can be compared with. Any other
difference must be named too, with its expected size and tolerance. A figure below its floor, or
one its named differences do not account for, fails the run (exit 1).
"""

from __future__ import annotations

from devtools.bench.arguments import ALLOW_AWS_HELP, count, int_list, levels, parser, positive_int, quick_sizes
from devtools.bench.endpoint import (
    REFUSAL,
    Target,
    connect,
    create_keyed_table,
    drop_tables,
    refused,
    tables_named,
    unmetered,
)
from devtools.bench.floors import (
    FLOOR_COLUMNS,
    FLOOR_LEGEND,
    LOCAL_EMPTY_QUERY,
    LOCAL_REFUSED_WRITE,
    LOCAL_TRANSACT_INDEX,
    REQUEST_COLUMNS,
    Column,
    Cost,
    Difference,
    Verdict,
    batch_get_units,
    index_entry,
    index_write_units,
    item_size,
    model_size,
    print_notes,
    query_units,
    read_units,
    total,
    update_units,
    write_units,
)
from devtools.bench.lifecycle import failure_text, finish, run
from devtools.bench.tables import COLUMN_GROUPS, align, columns, draw, show_table, table
from devtools.bench.verdicts import CheckFailed, Run, check, unexpected_operations, verdicts_error
from devtools.bench.writers import Contended, contend, progress_bar

__all__ = [
    "ALLOW_AWS_HELP",
    "COLUMN_GROUPS",
    "FLOOR_COLUMNS",
    "FLOOR_LEGEND",
    "LOCAL_EMPTY_QUERY",
    "LOCAL_REFUSED_WRITE",
    "LOCAL_TRANSACT_INDEX",
    "REFUSAL",
    "REQUEST_COLUMNS",
    "CheckFailed",
    "Column",
    "Contended",
    "Cost",
    "Difference",
    "Run",
    "Target",
    "Verdict",
    "align",
    "batch_get_units",
    "check",
    "columns",
    "connect",
    "contend",
    "count",
    "create_keyed_table",
    "draw",
    "drop_tables",
    "failure_text",
    "finish",
    "index_entry",
    "index_write_units",
    "int_list",
    "item_size",
    "levels",
    "model_size",
    "parser",
    "positive_int",
    "print_notes",
    "progress_bar",
    "query_units",
    "quick_sizes",
    "read_units",
    "refused",
    "run",
    "show_table",
    "table",
    "tables_named",
    "total",
    "unexpected_operations",
    "unmetered",
    "update_units",
    "verdicts_error",
    "write_units",
]
