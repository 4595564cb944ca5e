"""AWS's sample skip-scan printer, as the distinct-keys article publishes it — the baseline of bench/distinct_keys.py.

Transcribed unchanged in what it does (a serial Scan with Limit 1, ProjectionExpression ``pk``,
the sort key in LastEvaluatedKey replaced by its type's largest value; boto3's resource API;
``print`` per key; sleep 1 s and retry on throttling or an internal error), so the bench can time
the published program against ``python -m ddbmodels distinct-keys`` on the same table. The
endpoint comes from ``AWS_ENDPOINT_URL_DYNAMODB`` (boto3's own variable), as the sample takes
only a region and a table name. Not product code: ``ddbmodels.patterns.distinct_keys`` is.

    python bench/aws_sample_distinct_pks.py --region us-east-1 --table-name TABLE
"""

import argparse
import decimal
import time

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


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--region", required=True, help="AWS Region")
    parser.add_argument("--table-name", required=True, help="Name of the DynamoDB table")
    args = parser.parse_args()
    print_distinct_pks(args.region, args.table_name)
