"""AWS's sample skip-scan printer, as the distinct-keys article publishes it — the baseline of bench/distinct_keys.py.

Transcribed unchanged in what it does (a serial Scan with Limit 1, ProjectionExpression ``pk``,
the sort key in LastEvaluatedKey replaced by its type's largest value; boto3's resource API;
``print`` per key; sleep 1 s and retry on throttling or an internal error), so the bench can time
the published program against ``python -m ddbmodels distinct-keys`` on the same table. The
endpoint comes from ``AWS_ENDPOINT_URL_DYNAMODB`` (boto3's own variable), as the sample takes
only a region and a table name. Not product code: ``ddbmodels.patterns.distinct_keys`` is.

    python bench/aws_sample_distinct_pks.py --region us-east-1 --table-name TABLE

Without ``--region`` and ``--table-name`` (as ``make bench`` runs it) it is a bench of its own, on
``DYNAMODB_ENDPOINT_URL`` like the others (``--allow-aws`` for real AWS): a table of its own (the
bench prefix) gets ``--collections`` item collections (default 300) of ``--items`` items (default 5,
sort keys 0 … M−1, ~100 bytes each), the sample lists them, and the run checks that it printed
exactly the keys written. Its cost is metered on its own client (ConsumedCapacity asked for by a
botocore hook; the sample's calls are otherwise unchanged) and judged against DynamoDB's floor
from what was written: one Scan per collection (0.5 RCU per started 4 KB of the item it reads,
its first, sized by DynamoDB's rules) and a last Scan that finds nothing (0.5 RCU; DynamoDB Local
charges it 0). The same floor as ``distinct_keys.py``'s serial skip-scan.

    python -m devtools.services run -- .venv/bin/python bench/aws_sample_distinct_pks.py
"""

import argparse
import contextlib
import decimal
import io
import os
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import boto3.dynamodb.types
from botocore.exceptions import ClientError

MAX_SORT_KEY_VALUE_S = str(256 * chr(0x10FFFF))
MAX_SORT_KEY_VALUE_N = decimal.Decimal("9.9999999999999999999999999999999999999E+125")
MAX_SORT_KEY_VALUE_B = boto3.dynamodb.types.Binary(b"\xff" * 1024)


def print_distinct_pks(region: str, table_name: str) -> None:
    dynamodb = boto3.resource("dynamodb", region_name=region)
    table = dynamodb.Table(table_name)
    partition_key_name = table.key_schema[0]["AttributeName"]
    sort_key_name = table.key_schema[1]["AttributeName"]
    sort_key_type = table.attribute_definitions[1]["AttributeType"]
    max_sort_key_value: object = ""
    if sort_key_type == "S":
        max_sort_key_value = MAX_SORT_KEY_VALUE_S
    elif sort_key_type == "N":
        max_sort_key_value = MAX_SORT_KEY_VALUE_N
    elif sort_key_type == "B":
        max_sort_key_value = MAX_SORT_KEY_VALUE_B
    else:
        raise ValueError(f"Unsupported sort key type: {sort_key_type}")
    last_evaluated_key = None
    while True:
        try:
            scan_params = {"TableName": table_name, "Limit": 1, "ProjectionExpression": "pk"}
            if last_evaluated_key:
                scan_params["ExclusiveStartKey"] = last_evaluated_key
            response = table.scan(**scan_params)
            items = response["Items"]
            if len(items) > 0:
                print(items[0]["pk"])
            if "LastEvaluatedKey" not in response:
                break
            last_key = response["LastEvaluatedKey"]
            partition_key_value = last_key[partition_key_name]
            last_evaluated_key = {partition_key_name: partition_key_value, sort_key_name: max_sort_key_value}
        except ClientError as e:
            error_code = e.response["Error"]["Code"]
            if error_code in ("InternalServerError", "ThrottlingException"):
                print(f"Received an error: {error_code}, retrying...")
                time.sleep(1)
            else:
                raise


# ---------------------------------------------------------------------------- the bench around the sample

PAYLOAD = "x" * 80


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find devtools
    from devtools import bench

    parser = bench.parser("aws_sample_distinct_pks", __doc__)
    parser.add_argument("--region", help="AWS Region (the sample as published; with --table-name)")
    parser.add_argument("--table-name", help="Name of the DynamoDB table (the sample as published; with --region)")
    bench.count(parser, "--collections", 300, "item collections of the bench's own table")
    bench.count(parser, "--items", 5, "items per collection")
    args = parser.parse_args(argv)
    if (args.region is None) != (args.table_name is None):
        parser.error("--region and --table-name go together (the sample as published), or neither (the bench)")
    return bench.quick_sizes(parser, args, collections=100)


def partition_key(index: int) -> str:
    return f"c{index:05d}"


def measure(run: Any) -> None:
    """A table of the run's own, the sample on it (its stdout captured), checked and judged."""
    from ddbmodels.core import connection
    from devtools import bench

    args = run.args
    name = connection.table_name("sample")
    bench.create_keyed_table(name, sort_type="N")
    items = [
        {"pk": {"S": partition_key(p)}, "sk": {"N": str(n)}, "d": {"S": PAYLOAD}}
        for p in range(args.collections)
        for n in range(args.items)
    ]
    client = connection.client()
    for start in range(0, len(items), 25):
        request: dict[str, Any] = {name: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]}
        while request:
            request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}

    settings = run.target.settings
    if settings.endpoint_url:
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = settings.endpoint_url  # the sample's boto3 reads this one
    scans: list[float] = []  # the bench's own meter: each Scan's ConsumedCapacity, on the sample's client

    def ask_capacity(params: dict[str, Any], **_: Any) -> None:
        params["ReturnConsumedCapacity"] = "TOTAL"

    def count(parsed: dict[str, Any], **_: Any) -> None:
        scans.append(float(parsed.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0)))

    boto3.setup_default_session()  # the session the sample's boto3.resource() uses, with the bench's hooks
    assert boto3.DEFAULT_SESSION is not None
    boto3.DEFAULT_SESSION.events.register("provide-client-params.dynamodb.Scan", ask_capacity)
    boto3.DEFAULT_SESSION.events.register("after-call.dynamodb.Scan", count)
    printed = io.StringIO()
    began = time.perf_counter()
    with contextlib.redirect_stdout(printed):
        print_distinct_pks(settings.region, name)
    seconds = time.perf_counter() - began

    expected = [partition_key(p) for p in range(args.collections)]
    bench.check(sorted(printed.getvalue().split()) == expected, f"the sample did not print the {args.collections} keys")
    first = max(bench.item_size(item) for item in items if item["sk"]["N"] == "0")
    floor = bench.Cost(args.collections * bench.read_units(first) + 0.5, 0, args.collections + 1)
    verdict = run.judge(
        "the sample's skip scan",
        bench.Cost(sum(scans), 0, len(scans)),
        floor,
        local=bench.Difference(f"{bench.LOCAL_EMPTY_QUERY}: its last Scan", bench.Cost(-0.5)),
    )
    run.figures.update(
        collections=args.collections,
        items_per_collection=args.items,
        first_item_bytes=first,
        seconds=round(seconds, 3),
        keys_per_s=round(args.collections / seconds, 1),
        result={"what": "the sample's skip scan", "keys": args.collections, "seconds": round(seconds, 3)}
        | verdict.cells(),
    )


def show(run: Any) -> None:
    from devtools import bench

    result = run.figures.get("result")
    columns = bench.columns("what:s | keys:d | seconds:.2f | @rcu | @req | @verdict")
    bench.show_table(None, columns, [result] if result else None)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.region is not None:
        print_distinct_pks(args.region, args.table_name)  # the sample as published
        return 0
    from devtools import bench

    headline = ", {collections} collections of {items} items"
    return bench.run("aws_sample_distinct_pks", args, measure, show, headline=headline, tag="sample")


if __name__ == "__main__":
    sys.exit(main())
