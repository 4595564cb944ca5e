"""Beat schedules made for the team (django-celery-beat ``PeriodicTask`` rows whose arguments or name hold it).

Staff may schedule a task for one team (a leaderboard repair, a count refresh). Left in place, it
would run for a team that is gone and write its traces again. One SQL query of the rows holding the
slug (LIKE), each confirmed as a whole word, then deleted (beat notices: the model's signals).
"""

from __future__ import annotations

from django.db.models import Q
from django_celery_beat.models import PeriodicTask

from tracker.services.team_leftovers.names import Team


def team_schedules(team: Team, *, apply: bool) -> int:
    """Schedules of tasks for the team: how many (deleted when ``apply``)."""
    slug = team.slug
    rows = PeriodicTask.objects.filter(Q(args__contains=slug) | Q(kwargs__contains=slug) | Q(name__contains=slug))
    found = [row.pk for row in rows if team.names(f"{row.name} {row.args} {row.kwargs}")]
    if apply:
        for row in PeriodicTask.objects.filter(pk__in=found):
            row.delete()  # one by one: each delete tells beat its schedule changed
    return len(found)
