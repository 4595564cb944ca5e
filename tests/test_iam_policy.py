"""docs/iam-policy.json allows every AWS operation the code can call, and no more than the tracker's own resources.

Two guards: this file reads the source for the DynamoDB calls it can make (botocore client methods
and PynamoDB model methods); ``tests/aws_operations.py`` records the operations a test run actually
performs (DynamoDB Local and moto's S3) and fails the run when the policy misses one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.aws_operations import POLICY, allowed_actions, iam_actions, missing_actions

ROOT = Path(__file__).resolve().parent.parent
CODE = ("ddbmodels", "tracker", "devtools")
# PynamoDB's model and connection methods → the DynamoDB operations they send
PYNAMODB_CALLS = {
    r"\.create_table\(": "CreateTable",
    r"\.describe_table\(|\.exists\(\)": "DescribeTable",
    r"\.update_table\(": "UpdateTable",
    r"\.delete_table\(": "DeleteTable",
    r"\.list_tables\(": "ListTables",
    r"\.update_ttl\(|\.update_time_to_live\(": "UpdateTimeToLive",
    r"\.get_item\(|\bget\(\s*hash_key|\.get\(\s*[a-z_]+\s*,": "GetItem",
    r"\.put_item\(|\.save\(": "PutItem",
    r"\.update_item\(|\.update\(\s*actions": "UpdateItem",
    r"\.delete_item\(": "DeleteItem",
    r"\.query\(": "Query",
    r"\.scan\(": "Scan",
    r"\.batch_get_item\(|\.batch_get\(": "BatchGetItem",
    r"\.batch_write_item\(|\.batch_write\(": "BatchWriteItem",
    r"\.condition_check\(": "ConditionCheckItem",
    r"TransactWrite\(|\.transact_write_items\(": "TransactWriteItems",
}


def policy() -> dict[str, Any]:
    return json.loads(POLICY.read_text())


def operations_in_source() -> set[str]:
    found: set[str] = set()
    for folder in CODE:
        for file in sorted((ROOT / folder).rglob("*.py")):
            text = file.read_text()
            found.update(op for pattern, op in PYNAMODB_CALLS.items() if re.search(pattern, text))
    return found


def test_every_dynamodb_operation_in_the_source_is_allowed() -> None:
    found = operations_in_source()
    # the issue named these as missing from the README's old list of six
    for name in ("CreateTable", "DescribeTable", "UpdateTable", "ListTables", "DeleteTable", "TransactWriteItems"):
        assert name in found, name
    assert missing_actions({"dynamodb": found}, policy()) == []


def test_transactions_need_the_actions_of_their_parts() -> None:
    assert iam_actions("dynamodb", "TransactWriteItems") == []
    allowed = allowed_actions(policy())
    assert {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"} <= allowed


def test_the_archive_on_s3_can_write_read_check_list_and_delete() -> None:
    """django-storages: save → PutObject, open → GetObject, exists → HeadObject, listdir → ListObjectsV2."""
    operations = {"s3": {"PutObject", "GetObject", "HeadObject", "ListObjectsV2", "DeleteObject"}}
    assert missing_actions(operations, policy()) == []


def test_a_missing_action_is_named() -> None:
    assert missing_actions({"dynamodb": {"RestoreTableFromBackup"}}, policy()) == ["dynamodb:RestoreTableFromBackup"]


def test_the_policy_reaches_only_the_trackers_tables_and_archive() -> None:
    for statement in policy()["Statement"]:
        resources = statement["Resource"]
        for resource in [resources] if isinstance(resources, str) else resources:
            if statement["Action"] == "dynamodb:ListTables":
                assert resource == "*"  # ListTables has no resource of its own
            elif resource.startswith("arn:aws:dynamodb:"):
                assert resource.split(":table/", 1)[1].startswith("tracker-"), resource
            else:
                assert resource.startswith("arn:aws:s3:::my-tracker-archive"), resource
    deletes = [s for s in policy()["Statement"] if "dynamodb:DeleteTable" in s["Action"]]
    assert [s["Resource"] for s in deletes] == ["arn:aws:dynamodb:*:*:table/tracker-events-*"]
    assert not any(a.endswith(":*") for s in policy()["Statement"] for a in allowed_actions({"Statement": [s]}))


def test_the_last_runs_operations_are_allowed() -> None:
    """What the previous full run recorded (test-artifacts/aws-operations.json), when there is one."""
    report = ROOT / "test-artifacts" / "aws-operations.json"
    if not report.exists():
        return
    recorded = {service: set(names) for service, names in json.loads(report.read_text()).items()}
    assert missing_actions(recorded, policy()) == []
