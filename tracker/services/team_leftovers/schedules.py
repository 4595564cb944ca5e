"""Beat schedules made for the team (django-celery-beat ``PeriodicTask`` rows whose task is about it).

Staff may schedule a task for one team (a leaderboard repair, a count refresh). Left in place, it
would run for a team that is gone and write its traces again. A schedule is the team's when its task is
one of a team (``names.TASK_TEAM``) and the argument naming the team, parsed from the row's ``args``
(JSON list) or ``kwargs`` (JSON object), equals the slug (``names.task_team``). The schedule's name and
description are never read: a team called ``attachments`` leaves "reconcile attachments" alone. One SQL
query of the rows of those tasks whose arguments hold the slug (LIKE, a narrowing only), each parsed,
then deleted (beat notices: the model's signals).
"""

from __future__ import annotations

from django.db.models import Q
from django_celery_beat.models import PeriodicTask

from tracker.services.team_leftovers.names import TASK_TEAM, Team


def team_schedules(team: Team, *, apply: bool) -> int:
    """Schedules of tasks for the team: how many (deleted when ``apply``)."""
    slug = team.slug
    of_a_team = Q()
    for name in TASK_TEAM:
        of_a_team |= Q(task__endswith=f".{name}") | Q(task=name)
    rows = PeriodicTask.objects.filter(of_a_team).filter(Q(args__contains=slug) | Q(kwargs__contains=slug))
    found = [
        row.pk
        for row in rows.only("pk", "task", "args", "kwargs")
        if team.owns_task(row.task, row.args or "[]", row.kwargs or "{}")
    ]
    if apply:
        for row in PeriodicTask.objects.filter(pk__in=found):
            row.delete()  # one by one: each delete tells beat its schedule changed
    return len(found)
