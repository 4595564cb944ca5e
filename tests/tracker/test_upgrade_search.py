"""``manage.py upgrade_search`` on data of the old shape: label entries per label, per-record idempotency keys,
the search index rebuilt, the old tables gone; a rerun is a no-op and a killed run resumes."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command

import ddbmodels
from ddbmodels import idempotency, issues, labels
from ddbmodels.core import batch, connection, tables
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem, collection_key
from ddbmodels.tenants import reads as tenant_reads
from tracker.services import search_upgrade

pytestmark = [pytest.mark.ddblocal, pytest.mark.django_db]
TEAM = "acme"


@pytest.fixture
def old_install(ddblocal: ddbmodels.DynamoSettings) -> Iterator[str]:
    """Tables under a prefix of this test's own, with items as the previous version wrote them."""
    prefix = f"{ddblocal.table_prefix}up{uuid.uuid4().hex[:8]}-"
    ddbmodels.configure(table_prefix=prefix)
    idempotency.legacy_forget()
    labels.registry_forget()
    try:
        tables.create_all()  # what ddb_create_tables does: the new tables beside the old ones
        client = connection.client()
        # the old tables, no longer declared: idempotency (PK the team, SK "<kind>#<key>") and terms (PK the team)
        for base, hash_key, range_key in (("idempotency", "t", "k"), ("terms", "tn", "s")):
            client.create_table(
                TableName=connection.table_name(base),
                AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in (hash_key, range_key)],
                KeySchema=[
                    {"AttributeName": hash_key, "KeyType": "HASH"},
                    {"AttributeName": range_key, "KeyType": "RANGE"},
                ],
                BillingMode="PAY_PER_REQUEST",
            )
            tables.wait_active(connection.table_name(base))
        _write_old_shape()
        yield prefix
    finally:
        client = connection.client()
        for name in client.list_tables(Limit=100)["TableNames"]:
            if name.startswith(prefix):
                client.delete_table(TableName=name)
        ddbmodels.configure(table_prefix=ddblocal.table_prefix)
        idempotency.legacy_forget()
        labels.registry_forget()


def _write_old_shape() -> None:
    issues.project_create(tenant=TEAM, key="WEB", name="Web", created_by="owner")
    client = connection.client()
    now = utcnow()
    for n, (title, status, tags) in enumerate(
        [
            ("Login fails on Safari", "open", {"bug", "ui"}),
            ("Dark mode", "closed", {"feature"}),
            ("Docs", "open", None),
        ],
        start=1,
    ):
        issue = IssueItem(
            pk=collection_key(TEAM, "WEB"), number=n, title=title, status=status, reporter="ann", labels=tags
        )
        issue.set_list_keys()
        issue.save()  # the issue with its list keys, and no label entry: the old version kept them in ``terms``
        for tag in sorted(tags or ()):
            client.put_item(
                TableName=connection.table_name("terms"),
                Item={"tn": {"S": TEAM}, "s": {"S": f"l#{tag}#{status}#WEB#{n:012d}"}, "t": {"S": title}},
            )
        for word in title.lower().split():
            client.put_item(
                TableName=connection.table_name("terms"),
                Item={"tn": {"S": TEAM}, "s": {"S": f"w#{word}#WEB#{n:012d}"}, "w": {"S": title.lower()}},
            )
    old = {"t": {"S": TEAM}, "q": {"S": "req-1"}, "ca": {"S": now.strftime("%Y-%m-%dT%H:%M:%S.%f+0000")}}
    expires = int((now + timedelta(hours=20)).timestamp())
    client.put_item(
        TableName=connection.table_name("idempotency"),
        Item={**old, "k": {"S": "issue#WEB#form-key-1"}, "r": {"S": "1"}, "x": {"N": str(expires)}},
    )
    gone = int((now - timedelta(hours=1)).timestamp())
    client.put_item(
        TableName=connection.table_name("idempotency"),
        Item={**old, "k": {"S": "issue#WEB#form-key-old"}, "r": {"S": "2"}, "x": {"N": str(gone)}},
    )


def upgrade(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("upgrade_search", "--json", *args, stdout=out)
    text = out.getvalue()
    return json.loads(text[text.index("{\n") :])


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


def test_a_form_sent_before_the_upgrade_is_not_created_again_even_before_the_copy(old_install: str) -> None:
    again = issues.issue_create(
        tenant=TEAM, project_key="WEB", title="Login fails on Safari", reporter="ann", idempotency_key="form-key-1"
    )
    assert (again.replayed, again.number) == (True, 1)  # found in the old table: nothing written
    assert issues.issue_number_next(tenant=TEAM, project_key="WEB") == 4


def test_the_upgrade_builds_label_entries_copies_records_and_drops_the_old_tables(old_install: str) -> None:
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="open")) == []  # not built yet

    report = upgrade("--max-wcu", "500")

    result = report["result"]
    assert report["status"] == "done"
    assert result["labels"] == {"projects": 1, "issues": 3, "entries": 3, "settled": 0}
    assert result["idempotency"] == {"read": 2, "copied": 1, "expired": 1}
    # the old tables stay until the operator says no process of the previous version serves
    assert result["drop"] == "waiting for --drop-old-tables"
    assert tables.describe_table(connection.table_name("terms")) is not None
    # meanwhile a process of the previous version takes a form into the old table only
    client = connection.client()
    now = utcnow()
    later = int((now + timedelta(hours=12)).timestamp())
    client.put_item(
        TableName=connection.table_name("idempotency"),
        Item={
            "t": {"S": TEAM},
            "k": {"S": "issue#WEB#form-key-late"},
            "r": {"S": "3"},
            "q": {"S": "old-process"},
            "ca": {"S": now.strftime("%Y-%m-%dT%H:%M:%S.%f+0000")},
            "x": {"N": str(later)},
        },
    )

    dropped = upgrade("--drop-old-tables")["result"]
    assert dropped["resumed_from"]["stage"] == "drop"
    assert "labels" not in dropped  # only the drop was left
    assert dropped["drop"]["copied_again"]["copied"] == 1  # the late record, copied before its table went
    assert sorted(dropped["drop"]["dropped"]) == sorted(connection.table_name(t) for t in ("terms", "idempotency"))
    late = issues.issue_create(
        tenant=TEAM, project_key="WEB", title="Checkout", reporter="ann", idempotency_key="form-key-late"
    )
    assert (late.replayed, late.number) == (True, 3)
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="open")) == ["WEB-1"]
    assert refs(issues.label_list(tenant=TEAM, label="ui", status="open", project_key="WEB")) == ["WEB-1"]
    assert refs(issues.label_list(tenant=TEAM, label="feature", status="closed")) == ["WEB-2"]
    assert labels.team_labels(TEAM) == ["bug", "feature", "ui"]
    assert tables.describe_table(connection.table_name("terms")) is None  # every old entry gone, for free
    assert tables.describe_table(connection.table_name("idempotency")) is None
    # the copied record still answers a resubmission; a new key creates once
    again = issues.issue_create(
        tenant=TEAM, project_key="WEB", title="Login fails on Safari", reporter="ann", idempotency_key="form-key-1"
    )
    assert (again.replayed, again.number) == (True, 1)
    made = issues.issue_create(tenant=TEAM, project_key="WEB", title="New", reporter="ann", idempotency_key="k2")
    twice = issues.issue_create(tenant=TEAM, project_key="WEB", title="New", reporter="ann", idempotency_key="k2")
    assert (made.number, twice.number, twice.replayed) == (4, 4, True)

    rerun = upgrade()["result"]
    assert rerun["idempotency"] == {"read": 0, "copied": 0, "expired": 0}
    assert rerun["drop"] == {"copied_again": None, "dropped": []}
    assert rerun["labels"]["entries"] == 3  # the same entries rewritten: nothing new
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="open")) == ["WEB-1"]


def test_a_killed_run_resumes_at_its_checkpoint(old_install: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = search_upgrade._idempotency_stage

    def dies(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("killed")

    monkeypatch.setattr(search_upgrade, "_idempotency_stage", dies)
    with pytest.raises(RuntimeError):
        upgrade()
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="open")) == ["WEB-1"]  # the first stage stands
    monkeypatch.setattr(search_upgrade, "_idempotency_stage", real)
    report = upgrade()["result"]
    assert report["resumed_from"]["stage"] == "idempotency"
    assert "labels" not in report  # not done again
    assert report["idempotency"]["copied"] == 1


def test_offboarding_reads_the_old_tables_until_the_upgrade_drops_them(old_install: str) -> None:
    # an install not upgraded yet still holds a team's records and entries under the team's key
    assert (tenant_reads.tenant_key_name("idempotency"), tenant_reads.tenant_key_name("terms")) == ("t", "tn")
    old = [item for page in tenant_reads.tenant_keyed_pages(TEAM, "idempotency") for item in page]
    assert sorted(item["k"]["S"] for item in old) == ["issue#WEB#form-key-1", "issue#WEB#form-key-old"]
    assert tenant_reads.tenant_has_data(TEAM, score_shards=1)
    upgrade("--drop-old-tables")
    assert (tenant_reads.tenant_key_name("idempotency"), tenant_reads.tenant_key_name("terms")) == (None, None)
    copied = [item for page in tenant_reads.idempotency_pages(TEAM) for item in page]
    assert [item["k"]["S"] for item in copied] == [f"{TEAM}#issue#WEB#form-key-1"]  # found through by_tenant


def test_an_edit_between_the_label_stages_read_and_its_batch_is_not_overwritten(
    old_install: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # BatchWriteItem cannot carry the entries' version guard: a status change that lands between the
    # stage's read of a page and its batch must not leave the issue listed under its old status too.
    real = batch.batch_write_paced
    edited: list[int] = []

    def write_after_an_edit(requests: Any, **kwargs: Any) -> Any:
        if not edited:
            fresh = issues.issue_get(tenant=TEAM, project_key="WEB", number=1, consistent=True)
            assert fresh is not None
            edited.append(int(issues.issue_change_status(fresh, to="in_progress").number))
        return real(requests, **kwargs)

    monkeypatch.setattr(batch, "batch_write_paced", write_after_an_edit)  # issues.label_entries_put writes with it
    result = upgrade()["result"]

    assert edited == [1]
    assert result["labels"]["settled"] == 1
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="in_progress")) == ["WEB-1"]
    assert refs(issues.label_list(tenant=TEAM, label="bug", status="open")) == []
