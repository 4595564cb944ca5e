"""The admin log's records of staff edits to the team's DynamoDB items (``tracker.services.admin.items``).

Each item the item browser saved or deleted is logged as a ``LogEntry`` with no content type, its
``object_id`` the physical table and the item's key (every key of a team's item names the team), and
its message what was written. Those of the team are deleted: one SQL query of the item rows holding the
slug (LIKE), each confirmed as a whole word. Log entries of Django rows (a tenant renamed, a
membership changed) and of staff actions (an offboarding started) are not items and stay.
"""

from __future__ import annotations

from django.contrib.admin.models import LogEntry
from django.db.models import Q

from ddbmodels.core.connection import table_name
from tracker.services.team_leftovers.names import Team


def item_log_entries(team: Team, *, apply: bool) -> int:
    """The admin log's entries of the team's DynamoDB items: how many (deleted when ``apply``)."""
    slug = team.slug
    rows = LogEntry.objects.filter(content_type__isnull=True, object_id__startswith=table_name(""))
    rows = rows.filter(Q(object_id__contains=slug) | Q(object_repr__contains=slug) | Q(change_message__contains=slug))
    rows = rows.only("pk", "object_id", "object_repr")
    found = [row.pk for row in rows if team.names(f"{row.object_id} {row.object_repr}")]
    if apply and found:
        LogEntry.objects.filter(pk__in=found).delete()
    return len(found)
