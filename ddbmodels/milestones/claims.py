"""Name claims of milestones made before claims existed (review F17): found and written.

A milestone's name is unique in its project by its claim item (``writes._claim``: pk, m = "name#<casefold name>",
of = the milestone's id), written with it since the claims came. A milestone made before has none: a create of
its name racing another is then caught only by the create's list read. ``claims_check`` writes the missing ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.tables import error_code
from ddbmodels.milestones.model import MilestoneItem, partition_key
from ddbmodels.milestones.reads import CLAIM_PREFIX


@dataclass
class ClaimsChecked:
    """One project's milestones: how many had their claim, the claims written now, names left to a person."""

    milestones: int = 0
    claimed: int = 0
    written: int = 0
    conflicts: list[str] = field(default_factory=list)  # a name two milestones share, or claimed by another


@capacity.access_pattern("milestones.claims_check")
def claims_check(*, tenant: str, project_key: str, fix: bool = True) -> ClaimsChecked:
    """Query pk = ``<tenant>#<PROJECT>`` (milestones and claims, consistent: 1 RCU per started 4 KB) + PutItem
    ``attribute_not_exists(m)`` of each missing claim (1 WCU; with ``fix``). A name two milestones of the project
    share (possible only before claims) or whose claim names another milestone is reported, not changed."""
    pk = partition_key(tenant, project_key)
    table = MilestoneItem.Meta.table_name
    request: dict[str, Any] = {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {":pk": {"S": pk}}}
    found = [item for page in query_pages(table, ConsistentRead=True, **request) for item in page]
    claims = {item["m"]["S"]: item["of"]["S"] for item in found if item["m"]["S"].startswith(CLAIM_PREFIX)}
    checked = ClaimsChecked()
    for item in found:
        milestone_id = item["m"]["S"]
        if milestone_id.startswith(CLAIM_PREFIX):
            continue
        checked.milestones += 1
        name = item["nm"]["S"]
        key = CLAIM_PREFIX + name.casefold()
        holder = claims.get(key)
        if holder == milestone_id:
            checked.claimed += 1
        elif holder is not None:
            checked.conflicts.append(name)
        elif fix:
            if _put_claim(table, pk, key, milestone_id):
                checked.written += 1
                claims[key] = milestone_id
            else:
                checked.conflicts.append(name)  # claimed meanwhile by a milestone made now
        else:
            claims[key] = milestone_id  # counted as missing once: a second milestone of the name conflicts
            checked.conflicts.append(f"{name} (no claim)")
    return checked


def _put_claim(table: str, pk: str, key: str, milestone_id: str) -> bool:
    item: dict[str, Any] = {"pk": {"S": pk}, "m": {"S": key}, "of": {"S": milestone_id}}
    try:
        connection.client().put_item(
            TableName=table,
            Item=item,
            ConditionExpression="attribute_not_exists(#m)",
            ExpressionAttributeNames={"#m": "m"},
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return False
        raise
    return True
