"""The demo's description edit with a word diff (tracker/demo/history_diffs.py): alice edits WEB-1 once, its
history shows what changed; a second seed changes nothing."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User

from ddbmodels import issues
from tracker.demo.history_diffs import ADDED, history_diff_seed
from tracker.models import Membership, Tenant
from tracker.selectors.activity import issue_history_page


def test_the_demo_edits_web_1_once_and_its_history_shows_the_diff(db: None) -> None:
    tenant = Tenant.objects.create(slug=f"acme-{uuid.uuid4().hex[:8]}", name="Acme")  # DynamoDB Local is shared
    Membership.objects.create(user=User.objects.create_user("alice"), tenant=tenant, role="owner")
    assert history_diff_seed(tenant.slug) == []  # no WEB-1 yet: nothing to edit
    issues.project_create(tenant=tenant.slug, key="WEB", name="Website", created_by="alice")
    description = "Press the Pay button on the cart page: nothing happens."
    issues.issue_create(tenant=tenant.slug, project_key="WEB", title="Pay", reporter="alice", description=description)

    first = history_diff_seed(tenant.slug)
    again = history_diff_seed(tenant.slug)

    assert first == ["alice edited WEB-1's description (its history shows the word diff)"]
    assert again == []
    issue = issues.issue_get(tenant=tenant.slug, project_key="WEB", number=1, consistent=True)
    assert issue is not None
    assert issue.description == f"Press this Pay button on the cart page: nothing happens.\n\n{ADDED}"
    [line] = issue_history_page(issue=issue).lines
    assert line.text == "edited the description"
    assert [(s.op, s.text) for s in line.segments][:3] == [("equal", "Press "), ("delete", "the "), ("insert", "this ")]
    added = "".join(s.text for s in line.segments if s.op == "insert")
    assert ADDED.removesuffix(".") in added
