"""The staff item editor: saving an item as it was loaded writes nothing, logs nothing, bumps no version."""

from __future__ import annotations

from django.test import Client

from tests.tracker.conftest import World
from tests.tracker.helpers import flash, unchanged
from tests.tracker.test_admin_browser import open_edit_form, post_edit, stored
from tracker.audit.models import AuditEntry


def test_saving_an_item_as_it_was_loaded_writes_and_logs_nothing(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "editor-same", "As it was")
    with unchanged(world):
        response = post_edit(client, url, form["item"], form["loaded"])
    assert response.status_code == 302
    assert flash(response) == ["Nothing to save: the item is as you loaded it (nothing written)."]
    assert stored(world, issue).version == issue.version  # the app's open edit forms stay current
    assert not AuditEntry.objects.exists()  # nothing changed, nothing audited
