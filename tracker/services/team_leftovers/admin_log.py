"""The admin log's records of staff edits to the team's DynamoDB items (``tracker.services.admin.items``).

Each item the item browser saved or deleted is logged as a ``LogEntry`` with no content type, its
``object_id`` the physical table and the item's key (every key of a team's item names the team), and
its message what was written. Those of the team are deleted: one SQL query of the item rows holding the
slug (LIKE, a narrowing only), each entry's key parsed (``<table> <key as JSON>``): the team's when one of
the key's values is the team's key (the slug, or ``<slug>#…``) or a job of the team; the message is
never read. Log entries of Django rows (a tenant renamed, a membership changed) and of staff actions
(an offboarding started) are not items and stay.
"""

from __future__ import annotations

import json

from django.contrib.admin.models import LogEntry

from ddbmodels.core.connection import table_name
from tracker.services.team_leftovers.names import Team


def _is_teams(team: Team, object_id: str) -> bool:
    """``<table> <key as JSON>`` ({attribute: {"S": value}}): a value of the key is the team's."""
    try:
        key = json.loads(object_id.partition(" ")[2])
    except ValueError:
        return False
    if not isinstance(key, dict):
        return False
    values = [v.get("S") for v in key.values() if isinstance(v, dict)]
    return any(team.owns(value) for value in values)


def item_log_entries(team: Team, *, apply: bool) -> int:
    """The admin log's entries of the team's DynamoDB items: how many (deleted when ``apply``)."""
    slug = team.slug
    rows = LogEntry.objects.filter(content_type__isnull=True, object_id__startswith=table_name(""))
    rows = rows.filter(object_id__contains=slug).only("pk", "object_id")
    found = [row.pk for row in rows if _is_teams(team, row.object_id)]
    if apply and found:
        LogEntry.objects.filter(pk__in=found).delete()
    return len(found)
