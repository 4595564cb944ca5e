"""Pytest plugin: record every AWS operation the code under test calls, and hold it to docs/iam-policy.json.

A botocore ``before-call`` hook (in every session, like the capacity meter's) sees each DynamoDB
and S3 call — on DynamoDB Local and under moto alike. A call counts when ``ddbmodels/``,
``tracker/`` or ``devtools/`` is on the stack (the tests' own set-up and clean-up calls do not).
At the end of the run the operations go to ``test-artifacts/aws-operations.json`` and any whose
IAM action the published policy does not allow fails the run, naming it.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from botocore import handlers

ROOT = Path(__file__).resolve().parent.parent
POLICY = ROOT / "docs" / "iam-policy.json"
REPORT = ROOT / "test-artifacts" / "aws-operations.json"
CODE_DIRS = tuple(str(ROOT / name) + "/" for name in ("ddbmodels", "tracker", "devtools"))
# S3 operations whose IAM action has another name (https://docs.aws.amazon.com/service-authorization/)
S3_ACTIONS = {
    "HeadObject": ["s3:GetObject"],
    "ListObjectsV2": ["s3:ListBucket"],
    "ListObjects": ["s3:ListBucket"],
    "HeadBucket": ["s3:ListBucket"],
    "CopyObject": ["s3:GetObject", "s3:PutObject"],
    "DeleteObjects": ["s3:DeleteObject"],
    "CreateMultipartUpload": ["s3:PutObject"],
    "UploadPart": ["s3:PutObject"],
    "CompleteMultipartUpload": ["s3:PutObject"],
    "AbortMultipartUpload": ["s3:AbortMultipartUpload"],
}

# TransactWriteItems / TransactGetItems are no IAM actions of their own; their parts are.
TRANSACT_PARTS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
    "Get": "GetItem",
}
TRANSACTIONS = {"TransactWriteItems", "TransactGetItems"}

recorded: dict[str, set[str]] = defaultdict(set)


def iam_actions(service: str, operation: str) -> list[str]:
    """The IAM actions an operation needs (DynamoDB's are named as the operation)."""
    if service == "s3":
        return S3_ACTIONS.get(operation, [f"s3:{operation}"])
    if operation in TRANSACTIONS:
        return []
    return [f"{service}:{operation}"]


def allowed_actions(policy: dict[str, Any]) -> set[str]:
    actions: set[str] = set()
    for statement in policy["Statement"]:
        if statement["Effect"] == "Allow":
            listed = statement["Action"]
            actions.update([listed] if isinstance(listed, str) else listed)
    return actions


def missing_actions(operations: dict[str, set[str]], policy: dict[str, Any]) -> list[str]:
    allowed = allowed_actions(policy)
    return sorted(
        {
            action
            for service, names in operations.items()
            for name in names
            for action in iam_actions(service, name)
            if action not in allowed
        }
    )


def _called_by_the_code() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(CODE_DIRS):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _before_call(*, model: Any, params: dict[str, Any] | None = None, **_: Any) -> None:
    service = model.service_model.endpoint_prefix
    if service in ("dynamodb", "s3") and _called_by_the_code():
        recorded[service].add(model.name)
        # A transaction is authorised action by action: Put → PutItem, ConditionCheck → ConditionCheckItem …
        for item in (params or {}).get("TransactItems", []):
            for kind in item:
                recorded[service].add(TRANSACT_PARTS.get(kind, kind))


_HOOK = ("before-call", _before_call)
if _HOOK not in handlers.BUILTIN_HANDLERS:
    handlers.BUILTIN_HANDLERS.append(_HOOK)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not recorded or hasattr(session.config, "workerinput"):
        return
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps({service: sorted(names) for service, names in sorted(recorded.items())}, indent=2))
    missing = missing_actions(recorded, json.loads(POLICY.read_text()))
    if missing:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"docs/iam-policy.json does not allow {', '.join(missing)}, which the code called in this run"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
