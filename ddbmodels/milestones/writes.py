"""Writing milestones: created once per form, edited and closed under the version they were loaded at."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from pynamodb.exceptions import TransactWriteError, UpdateError

from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidInput, is_conditional_failure
from ddbmodels.core.exactly_once import lost_in_transaction
from ddbmodels.core.keys import utcnow
from ddbmodels.core.transactions import RawTransactWrite
from ddbmodels.milestones.model import (
    DESCRIPTION_MAX,
    ISSUE_STATUSES,
    MILESTONE_ID_RE,
    NAME_MAX,
    STATES,
    MilestoneItem,
    new_milestone_id,
    partition_key,
)
from ddbmodels.milestones.reads import CLAIM_PREFIX, MILESTONES_MAX, by_name, milestone_get, milestone_list


class NameTaken(AlreadyExists, code="milestone_name_taken"):
    """Another milestone of the project has this name."""


class TooMany(InvalidInput, code="milestones_too_many"):
    """The project has as many milestones as one keeps (``MILESTONES_MAX``, open and closed)."""


def _claim_key(pk: str, name: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "m": {"S": CLAIM_PREFIX + name.casefold()}}


def _claim(transaction: RawTransactWrite, pk: str, name: str, milestone_id: str) -> None:
    """Put the name claim ``(pk, "name#<casefold name>")`` if no milestone holds it: the write that makes a name
    unique in the project (the transaction fails when another milestone claimed it first)."""
    transaction._put_items.append(
        {
            "TableName": MilestoneItem.Meta.table_name,
            "Item": {**_claim_key(pk, name), "of": {"S": milestone_id}},
            "ConditionExpression": "attribute_not_exists(#m)",
            "ExpressionAttributeNames": {"#m": "m"},
        }
    )


def _transaction() -> RawTransactWrite:
    return RawTransactWrite(
        connection=MilestoneItem._get_connection().connection,
        client_request_token=uuid.uuid4().hex,
        return_consumed_capacity="TOTAL",
    )


def _clean(name: str, description: str) -> tuple[str, str | None]:
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX or '"' in name:
        raise InvalidInput(f"a milestone's name is 1–{NAME_MAX} characters, without double quotes", name=name)
    if len(description) > DESCRIPTION_MAX:
        raise InvalidInput(f"a description is at most {DESCRIPTION_MAX} characters")
    return name, description.strip() or None


def _name_free(tenant: str, project_key: str, name: str, *, but: str | None = None) -> list[MilestoneItem]:
    """The project's milestones (consistent), after checking none but ``but`` has ``name`` (milestones made before
    name claims existed have none: this read finds them)."""
    listed = milestone_list(tenant=tenant, project_key=project_key, consistent=True)
    found = by_name(listed, name)
    if found is not None and found.milestone_id != but:
        raise NameTaken(f"{project_key} already has a milestone called {found.name}", name=found.name)
    return listed


@capacity.access_pattern("milestones.create")
def milestone_create(
    *,
    tenant: str,
    project_key: str,
    name: str,
    due: date | None,
    description: str = "",
    created_by: str,
    milestone_id: str | None = None,
) -> tuple[MilestoneItem, bool]:
    """Query the project's milestones (the name check: ≈ 1 RCU consistent) + PutItem ``attribute_not_exists(m)``:
    1 WCU. Returns (milestone, created): with the form's key as ``milestone_id`` the same form again finds
    its own milestone and writes nothing (created False). NameTaken when another one has the name.
    """
    name, text = _clean(name, description)
    milestone_id = milestone_id or new_milestone_id()
    if not MILESTONE_ID_RE.match(milestone_id):
        raise InvalidInput("not a milestone id", milestone_id=milestone_id)
    existing = milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
    if existing is not None:
        return existing, False  # this form was sent before: its milestone, nothing written twice
    if len(_name_free(tenant, project_key, name)) >= MILESTONES_MAX:
        raise TooMany(f"{project_key} has {MILESTONES_MAX} milestones, the most a project keeps", project=project_key)
    now = utcnow()
    item = MilestoneItem(
        pk=partition_key(tenant, project_key),
        milestone_id=milestone_id,
        name=name,
        due=due.isoformat() if due else None,
        state="open",
        description=text,
        issue_counts=dict.fromkeys(ISSUE_STATUSES, 0),
        created_at=now,
        updated_at=now,
        created_by=created_by,
    )
    try:
        with _transaction() as transaction:
            transaction.save(item, condition=MilestoneItem.milestone_id.does_not_exist())
            _claim(transaction, item.pk, name, milestone_id)
    except TransactWriteError as error:
        if not lost_in_transaction(error):
            raise
        existing = milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
        if existing is not None:
            return existing, False  # this form's milestone (sent twice at once, or its answer lost)
        raise NameTaken(f"{project_key} already has a milestone called {name}", name=name) from error
    return item, True


def _update(item: MilestoneItem, actions: list, expected_version: int) -> MilestoneItem:  # type: ignore[type-arg]
    if int(item.version or 0) != expected_version:
        raise ChangedSinceRead("the milestone changed since it was loaded", milestone=item.milestone_id)
    try:
        item.update(actions=[*actions, MilestoneItem.updated_at.set(utcnow())])
    except UpdateError as error:
        if is_conditional_failure(error):
            raise ChangedSinceRead("the milestone changed since it was loaded", milestone=item.milestone_id) from error
        raise
    return item


@capacity.access_pattern("milestones.update")
def milestone_update(
    item: MilestoneItem, *, name: str, due: date | None, description: str, expected_version: int
) -> MilestoneItem:
    """UpdateItem conditioned on the version — 1 WCU; renamed: the name check's Query (consistent, ≈ 1 RCU) +
    TransactWriteItems [Update, Put new claim, Delete old claim] (6 WCU) + the milestone read back (1 RCU).

    ChangedSinceRead when it was saved since ``expected_version``; NameTaken for another milestone's name.
    """
    name, text = _clean(name, description)
    actions = [
        MilestoneItem.name.set(name),
        MilestoneItem.due.set(due.isoformat()) if due else MilestoneItem.due.remove(),
        MilestoneItem.description.set(text) if text else MilestoneItem.description.remove(),
        MilestoneItem.last_close.remove(),  # an edit: the last close's outcome is no longer news
    ]
    if name.casefold() == item.name.casefold():
        return _update(item, actions, expected_version)
    _name_free(item.tenant, item.project_key, name, but=item.milestone_id)
    return _rename(item, actions, name, expected_version)


def _rename(item: MilestoneItem, actions: list, name: str, expected_version: int) -> MilestoneItem:  # type: ignore[type-arg]
    """TransactWriteItems [Update the milestone on its version, Put the new name's claim if free, Delete the old
    name's claim if it is this milestone's (or none)] — 2 WCU each: a name freed by a rename can be taken at once."""
    if int(item.version or 0) != expected_version:
        raise ChangedSinceRead("the milestone changed since it was loaded", milestone=item.milestone_id)
    old = item.name
    try:
        with _transaction() as transaction:
            transaction.update(item, [*actions, MilestoneItem.updated_at.set(utcnow())])
            _claim(transaction, item.pk, name, item.milestone_id)
            transaction._delete_items.append(
                {
                    "TableName": MilestoneItem.Meta.table_name,
                    "Key": _claim_key(item.pk, old),
                    "ConditionExpression": "attribute_not_exists(#m) OR #of = :id",
                    "ExpressionAttributeNames": {"#m": "m", "#of": "of"},
                    "ExpressionAttributeValues": {":id": {"S": item.milestone_id}},
                }
            )
    except TransactWriteError as error:
        if not lost_in_transaction(error):
            raise
        fresh = milestone_get(tenant=item.tenant, project_key=item.project_key, milestone_id=item.milestone_id)
        if fresh is None or int(fresh.version or 0) != expected_version:
            raise ChangedSinceRead("the milestone changed since it was loaded", milestone=item.milestone_id) from error
        raise NameTaken(f"{item.project_key} already has a milestone called {name}", name=name) from error
    return milestone_get(tenant=item.tenant, project_key=item.project_key, milestone_id=item.milestone_id) or item


@capacity.access_pattern("milestones.close")
def milestone_set_state(
    item: MilestoneItem,
    *,
    state: str,
    expected_version: int,
    to: str | None = None,
    token: str | None = None,
    outcome: Mapping[str, Any] | None = None,
) -> MilestoneItem:
    """UpdateItem ``st`` (and ``cl``; ``ct``/``ck`` when "closing": where its issues go, the close's token, which
    a resumed job reads; ``lr`` the close's ``outcome`` at its end, dropped otherwise; ``cm`` dropped) conditioned on
    the version — 1 WCU (the outcome, a few hundred bytes: the close names at most 20 refused issues, so the item
    stays near 1 KB).
    ChangedSinceRead when stale."""
    if state not in STATES:
        raise InvalidInput("a milestone is open, closing or closed", state=state)
    if state == "closing" and not token:
        raise InvalidInput("a close has a token", state=state)
    actions = [
        MilestoneItem.state.set(state),
        MilestoneItem.closed_at.set(utcnow()) if state == "closed" else MilestoneItem.closed_at.remove(),
        MilestoneItem.close_to.set(to) if state == "closing" and to else MilestoneItem.close_to.remove(),
        MilestoneItem.close_token.set(token) if state == "closing" and token else MilestoneItem.close_token.remove(),
        MilestoneItem.last_close.set(dict(outcome)) if outcome else MilestoneItem.last_close.remove(),
        MilestoneItem.close_moved.remove(),  # a new close counts from nothing; an ended one's count is in lr
    ]
    return _update(item, actions, expected_version)


@capacity.access_pattern("milestones.close_moved")
def close_moved_write(item: MilestoneItem, *, token: str, moved: int) -> bool:
    """Keep how many open issues the running close ``token`` has moved so far (``cm``) — UpdateItem conditioned on
    ``st = "closing"`` and ``ck = token``, the version left alone (a form open on the milestone stays current):
    1 WCU. False when that close is not running any more (it ended, or another one began): nothing written."""
    try:
        MilestoneItem._get_connection().update_item(
            item.pk,
            item.milestone_id,
            actions=[MilestoneItem.close_moved.set(moved)],
            condition=(MilestoneItem.state == "closing") & (MilestoneItem.close_token == token),
        )
    except UpdateError as error:
        if not is_conditional_failure(error):
            raise
        return False
    item.close_moved = moved
    return True


@capacity.access_pattern("milestones.progress")
def progress_write(milestones: Iterable[MilestoneItem], counts: Mapping[str, Mapping[str, int]]) -> int:
    """The counts refresh's result per milestone id onto ``milestones`` (the project's, as last read): UpdateItem
    ``ic`` of each whose counts differ — 1 WCU each, nothing for the others; the version is left alone (an
    editor's form stays current). Returns how many were written. A milestone no issue names any more gets zeros.
    """
    written = 0
    connection = MilestoneItem._get_connection()
    for milestone in milestones:
        wanted = {status: int(counts.get(milestone.milestone_id, {}).get(status, 0)) for status in ISSUE_STATUSES}
        if wanted == milestone.counts():
            continue
        try:
            connection.update_item(
                milestone.pk,
                milestone.milestone_id,
                actions=[MilestoneItem.issue_counts.set(wanted)],
                condition=MilestoneItem.pk.exists(),
            )
        except UpdateError as error:
            if not is_conditional_failure(error):  # deleted meanwhile (offboarding): nothing to count
                raise
            continue
        written += 1
    return written
