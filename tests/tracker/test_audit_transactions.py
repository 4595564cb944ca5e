"""The staff audit's entry is committed before the change (review should 7).

``audit_begin`` writes in a durable transaction of its own: called inside an open one it refuses
(RuntimeError) before anything is written, since its entry would roll back with the caller while
the DynamoDB write or the queued job stays. The real callers (the item browser, the jobs page, the
offboarding and beat admin actions) run outside any transaction: their tests in test_staff_rights
and test_beat_admin go through here.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from ddbmodels.core import items as ddb
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, staff_user
from tests.tracker.test_staff_rights import RAW, edit, issue_url, login, stored_issue
from tracker.audit.models import AuditEntry
from tracker.services.admin.audit import Action, audit_begin, audit_with_change


def test_a_raw_edit_inside_a_transaction_that_then_fails_leaves_no_unaudited_write(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the entry was INSERTed in the caller's transaction, the put went to DynamoDB, the raise
    rolled the entry back: the item changed and the audit said nothing. Now refused before both."""
    issue = new_issue(world, "Audited or untouched")
    client = login("raw-editor", RAW)
    url = issue_url(client, world, issue.number)
    before = stored_issue(world, issue.number)
    real_put = ddb.item_put_unchanged

    def put_then_crash(*args: Any, **kwargs: Any) -> None:
        real_put(*args, **kwargs)
        raise RuntimeError("the request failed after the write")

    monkeypatch.setattr(ddb, "item_put_unchanged", put_then_crash)
    with pytest.raises(RuntimeError) as raised, transaction.atomic():  # a caller (or ATOMIC_REQUESTS) holding one
        edit(client, url, {**before, "t": {"S": "Changed in the dark"}}, before)
    changed = stored_issue(world, issue.number) != before
    assert not changed or AuditEntry.objects.exists(), "the item changed and its audit entry rolled back"
    assert "durable atomic block" in str(raised.value)
    assert not changed
    assert not AuditEntry.objects.exists()


def test_the_entry_outside_a_transaction_is_committed_before_the_caller_goes_on() -> None:
    by = staff_user("destroyer")
    entry = audit_begin(by=by, action=Action.JOB_START, target="a job", details={})
    assert AuditEntry.objects.filter(pk=entry.pk, outcome="pending").exists()


def test_an_entry_with_the_change_rolls_back_with_it() -> None:
    """A schedule's entry is in the schedule's transaction: a change that fails leaves no entry of it."""
    by = staff_user("scheduler")

    def save_that_fails() -> None:
        with transaction.atomic():
            audit_with_change(by=by, action=Action.SCHEDULE, target="a schedule", details={})
            raise ValueError("the save failed")

    with pytest.raises(ValueError, match="the save failed"):
        save_that_fails()
    assert not AuditEntry.objects.exists()
    with transaction.atomic():
        entry = audit_with_change(by=by, action=Action.SCHEDULE, target="a schedule", details={})
    assert AuditEntry.objects.get(pk=entry.pk).outcome == "done"
