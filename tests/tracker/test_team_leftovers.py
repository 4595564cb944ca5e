"""Offboarding removes a team from every place outside its DynamoDB items (issue 20, finding 1), and says so.

Each place is filled for the team and for another team, the team is offboarded, and an independent
scan (``tests.support.team_scan``: every Redis key, every SQL row, every stored file) finds nothing of
the team while the other team's traces are untouched; the report names each place and what it removed.
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django_celery_results.models import TaskResult

from ddbmodels import events, jobs
from ddbmodels.core import capacity, hot_keys
from ddbmodels.core.connection import table_name
from tests.support import team_scan
from tests.tracker.conftest import World
from tracker import capacity_stats, hot_key_stats, optional_redis, tasks
from tracker.celery import app
from tracker.jobs import RUNS_KEY, record_run
from tracker.models import RetiredSlug, Tenant
from tracker.selectors.inbox import unread_cache_key
from tracker.selectors.projects import project_list_cache_key
from tracker.services import team_leftovers
from tracker.services.team_leftovers import celery_results, job_checkpoints, redis_places
from tracker.services.team_leftovers.names import REMOVED, TASK_TEAM, TASKS_OF_NO_TEAM, task_team

pytestmark = pytest.mark.ddblocal


def offboard(slug: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("offboard_tenant", slug, "--yes", "--json", stdout=out)
    return json.loads(out.getvalue())["result"]


def needles(world: World) -> list[str]:
    """What names the team in a key, a job name, a path or a task's arguments."""
    slug = world.slug
    return [f"{slug}#", f":{slug}:", f"'{slug}'", f'"{slug}"', f"attachments/{slug}", f"/{slug}/", f":{slug}"]


def found(world: World, hits: list[team_scan.Hit]) -> list[str]:
    return team_scan.unexpected(hits, allowed=team_scan.offboarding_records(world.slug))


def redis_traces(world: World) -> None:
    """What the site leaves in Redis for a team: cached pages, hot keys, capacity figures, its jobs' runs."""
    slug, name = world.slug, world.member.username
    cache.set(project_list_cache_key(slug), [{"key": "WEB", "name": "Website"}])
    cache.set(unread_cache_key(slug, name), 3)
    cache.add(f"counts-pending:{slug}#WEB", 1)
    batch = hot_keys.Batch()
    for key in (f"{slug}#WEB", f"{slug}#{name}", slug, f"import_upload:{slug}:01J"):
        batch.keys[hot_keys.Touch(table_name("issues"), "", key)] = hot_keys.Figures(5, 2.0, 1.0)
    batch.tables[(table_name("issues"), "")] = hot_keys.Figures(20, 8.0, 4.0)
    hot_key_stats.ship(batch)
    meter = capacity.CapacityMeter()
    meter.rcu, meter.requests = 3.0, 2
    capacity_stats.record("job", f"import_issues:{slug}:abc", meter)
    capacity_stats.record("job", f"leaderboard_repair:{slug}", meter)
    record_run({"job": f"import_upload:{slug}:01J", "status": "done"})
    record_run({"job": "backfill_project_counts", "status": "failed", "error": f"NotFound: {slug}#WEB"})


def test_redis_keeps_nothing_of_an_offboarded_team_and_keeps_the_others(
    world: World, other_world: World, media: Path, archive_dir: Path
) -> None:
    optional_redis.resume()
    redis_traces(world)
    redis_traces(other_world)
    assert found(world, team_scan.redis_hits(settings.REDIS_URL, needles(world)))  # the traces are there

    report = offboard(world.slug)

    assert found(world, team_scan.redis_hits(settings.REDIS_URL, needles(world))) == []
    others = team_scan.redis_hits(settings.REDIS_URL, needles(other_world))
    assert {h.where.split(" ", 1)[1] for h in others} >= {
        f"{cache.make_key(project_list_cache_key(other_world.slug))}",
        f"{cache.make_key(unread_cache_key(other_world.slug, other_world.member.username))}",
    }
    assert any("hotkeys" in h.where for h in others)
    assert any("ddbcap" in h.where for h in others)
    assert any("jobs:runs" in h.where for h in others)
    removed = report["places"]["redis"]
    assert removed["keys (cache, locks)"] == 3
    assert removed["hot-key statistics"] >= 4  # and any of the offboarding's own reads that were sampled
    assert removed["capacity statistics"] >= 4  # two jobs' rcu, requests and count fields (3 each)
    assert removed["job history"] == 2
    assert report["finished"]
    assert report["remaining"]["redis"] == 0


def test_the_teams_task_records_go_and_shared_job_results_lose_its_entries(
    world: World, other_world: World, archive_dir: Path
) -> None:
    slug, other = world.slug, other_world.slug
    for tenant in (slug, other):
        TaskResult.objects.create(
            task_id=f"search-{tenant}",
            task_name="tracker.tasks.search_index_change",
            task_args=json.dumps(f"('{tenant}', 'WEB', 1)"),
            task_kwargs=json.dumps("{}"),
            status="SUCCESS",
            result=json.dumps(f"indexed {tenant}#WEB#1 'Secret plans'"),
        )
    sample = {"report": {"distinct_keys": 2}, "sample": [f"{slug}#WEB", f"{other}#WEB"]}
    TaskResult.objects.create(
        task_id="distinct-keys-run",
        task_name="tracker.tasks.distinct_keys",
        task_args=json.dumps("('tracker-issues',)"),
        status="SUCCESS",
        result=json.dumps({"job": "distinct_keys:tracker-issues", "result": sample}),
    )
    backend = app.backend  # the tests' result backend is Redis: a task's record there too
    backend.client.set(
        f"celery-task-meta-fan-{slug}",
        json.dumps(
            {
                "status": "SUCCESS",
                "name": "tracker.tasks.fan_out_event",
                "args": [],
                "result": None,
                "kwargs": {"event": {"stream": f"{slug}#WEB#1", "title": "Secret plans"}},
            }
        ),
    )
    assert found(world, team_scan.sql_hits(needles(world)))

    report = offboard(world.slug)

    assert found(world, team_scan.sql_hits(needles(world))) == []
    assert found(world, team_scan.redis_hits(settings.CELERY_RESULT_BACKEND, needles(world))) == []
    assert TaskResult.objects.filter(task_id=f"search-{other}").exists()
    shared = json.loads(TaskResult.objects.get(task_id="distinct-keys-run").result)
    assert shared["result"]["sample"] == [f"{other}#WEB"]
    assert report["places"]["job results"] == {
        "task records": {"deleted": 1, "redacted": 1},
        "task records in Redis": {"deleted": 1, "redacted": 0},
    }


def test_tasks_about_a_teams_items_store_no_result_with_their_arguments(world: World) -> None:
    app.conf.task_store_eager_result = True
    try:
        kwargs = {"tenant": world.slug, "project_key": "WEB", "number": 1}
        result = tasks.search_index_change.apply(kwargs=kwargs)
        assert app.backend.client.get(f"celery-task-meta-{result.id}") is None
        counted = tasks.refresh_project_counts.apply(args=[world.slug, "WEB"])
        assert app.backend.client.get(f"celery-task-meta-{counted.id}") is None
    finally:
        app.conf.task_store_eager_result = False
    assert all(t.ignore_result for t in (tasks.fan_out_event, tasks.send_notification_digest))


def test_the_admin_logs_copies_of_the_teams_items_are_deleted(
    world: World, other_world: World, archive_dir: Path, admin_user: Any
) -> None:
    for tenant in (world.slug, other_world.slug):
        key = json.dumps({"pk": {"S": f"{tenant}#WEB"}, "n": {"N": "1"}})
        LogEntry.objects.create(
            user_id=admin_user.pk,
            content_type=None,
            object_id=f"{table_name('issues')} {key}",
            object_repr=f"Changed {table_name('issues')} item {key}"[:200],
            action_flag=CHANGE,
            change_message=json.dumps({"before": {"title": "Secret plans"}, "after": {"title": "Public"}}),
        )
    assert found(world, team_scan.sql_hits(needles(world)))

    report = offboard(world.slug)

    assert found(world, team_scan.sql_hits(needles(world))) == []
    assert LogEntry.objects.filter(object_id__contains=f"{other_world.slug}#WEB").count() == 1
    assert report["places"]["admin log"] == {"copies of edited items": 1}


def test_shared_jobs_checkpoints_lose_the_team(world: World, other_world: World, archive_dir: Path) -> None:
    token = jobs.fence_acquire("backfill_project_counts", "test")
    jobs.checkpoint_save("backfill_project_counts", token, f"{world.slug}#WEB")
    token = jobs.fence_acquire("upgrade_search", "test")
    state = {"stage": "search", "tenants_done": [other_world.slug, world.slug], "tenant": world.slug}
    state["rebuild"] = {"done": ["WEB"], "project": "OPS", "after": 7}  # its position in the team under way
    jobs.checkpoint_save("upgrade_search", token, json.dumps(state))

    report = offboard(world.slug)

    assert jobs.job_state("backfill_project_counts").checkpoint is None  # type: ignore[union-attr]
    upgrade = json.loads(jobs.job_state("upgrade_search").checkpoint)  # type: ignore[union-attr, arg-type]
    assert upgrade == {"stage": "search", "tenants_done": [other_world.slug]}
    assert world.slug not in json.dumps(upgrade)
    assert report["places"]["job checkpoints"] == {"shared jobs' checkpoints": 2}


def test_every_module_saving_a_job_checkpoint_is_accounted_for() -> None:
    """A new job that saves a checkpoint shared by every team must be added to SHARED_CHECKPOINT_JOBS."""
    known = {
        "tracker/services/maintenance.py": "backfill_project_counts (shared)",
        "tracker/services/search_upgrade.py": "upgrade_search (shared)",
        "tracker/services/imports.py": "the team's own job items (tenant=)",
        "tracker/services/offboarding.py": "the offboarding's own item",
        "tracker/jobs.py": "JobRun.save_checkpoint itself",
        "tracker/search/rebuild.py": "IndexCheckpoint rows, removed by search_indexing.remove_tenant",
    }
    root = Path(__file__).parents[2]
    saving = set()
    for path in (root / "tracker").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if names & {"save_checkpoint", "checkpoint_save"}:
            saving.add(str(path.relative_to(root)))
    assert saving <= set(known), saving - set(known)
    assert set(job_checkpoints.SHARED_CHECKPOINT_JOBS) == {"backfill_project_counts", "upgrade_search"}


def test_orphan_files_and_empty_folders_under_the_teams_folder_are_deleted(
    world: World, other_world: World, media: Path, archive_dir: Path
) -> None:
    for tenant in (world.slug, other_world.slug):  # a crashed upload: stored, no item names it
        orphan = media / "attachments" / tenant / "WEB" / "7" / "01JORPHAN" / "secret-plans.pdf"
        orphan.parent.mkdir(parents=True)
        orphan.write_bytes(b"%PDF secret")
        (media / "attachments" / tenant / "OPS" / "3").mkdir(parents=True)  # emptied by an earlier detach
    assert found(world, team_scan.file_hits(media, needles(world)))

    report = offboard(world.slug)

    assert found(world, team_scan.file_hits(media, needles(world))) == []
    assert not (media / "attachments" / world.slug).exists()
    assert (media / "attachments" / other_world.slug / "WEB" / "7" / "01JORPHAN" / "secret-plans.pdf").exists()
    assert report["places"]["files"]["team folders"]["files"] == 1
    assert report["places"]["files"]["team folders"]["folders"] == 6  # the team's, WEB, 7, the id, OPS, 3


def test_does_this_team_still_hold_data_looks_at_events_and_every_other_place(make_world: Any) -> None:
    world = make_world(with_project=False)
    slug = world.slug
    events.event_put(stream=f"{slug}#WEB#1", kind="issue.edited", actor="ann", tenant=slug, data={})
    assert "DynamoDB still holds data" in (world.tenant.data_left() or "")

    bare = make_world(with_project=False)
    cache.set(project_list_cache_key(bare.slug), [])
    assert "Redis still hold" in (bare.tenant.data_left() or "")
    cache.delete(project_list_cache_key(bare.slug))
    TaskResult.objects.create(
        task_id="t1",
        task_name="tracker.tasks.import_github_export",
        task_args=json.dumps(f"('{bare.slug}', '01J')"),
        status="SUCCESS",
    )
    assert "Job results still hold" in (bare.tenant.data_left() or "")
    TaskResult.objects.filter(task_id="t1").delete()
    assert bare.tenant.data_left() is None
    assert team_leftovers.left(team_leftovers.Team(bare.slug)) == dict.fromkeys(team_leftovers.PLACES, 0)


def test_the_retired_slugs_page_lists_each_place_and_what_was_removed(
    world: World, archive_dir: Path, admin_client: Client
) -> None:
    redis_traces(world)
    offboard(world.slug)
    retired = RetiredSlug.objects.get(slug=world.slug)
    page = admin_client.get(f"/admin/tracker/retiredslug/{retired.pk}/change/").content.decode()
    for place in team_leftovers.PLACES:
        assert place.capitalize() in page
    shown = re.search(r"hot-key statistics: (\d+)", page)
    assert shown is not None
    assert int(shown.group(1)) >= 4  # the four shipped above, and any its own reads were sampled on
    assert Tenant.objects.get(slug=world.slug).data_left() is None


def test_tasks_scheduled_for_the_team_are_unscheduled(world: World, other_world: World, archive_dir: Path) -> None:
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.HOURS)
    for tenant in (world.slug, other_world.slug):
        PeriodicTask.objects.create(
            name=f"repair points of {tenant}",
            task="tracker.tasks.refresh_project_counts",
            interval=every,
            args=json.dumps([tenant, "WEB"]),
        )

    report = offboard(world.slug)

    assert found(world, team_scan.sql_hits(needles(world))) == []
    assert list(PeriodicTask.objects.filter(name__startswith="repair").values_list("name", flat=True)) == [
        f"repair points of {other_world.slug}"
    ]
    assert report["places"]["schedules"] == {"tasks scheduled for the team": 1}


def test_tasks_waiting_in_the_queue_about_the_team_are_taken_out(
    world: World, other_world: World, archive_dir: Path
) -> None:
    """A fan-out queued before offboarding would write the team's notifications again after it."""
    for tenant in (world.slug, other_world.slug):  # no worker runs here: they wait in the broker's queue
        event = {"stream": f"{tenant}#WEB#1", "kind": "comment.added", "title": "Secret plans", "team": {}}
        tasks.fan_out_event.apply_async(kwargs={"event": event})
    assert found(world, team_scan.redis_hits(settings.CELERY_BROKER_URL, needles(world)))

    report = offboard(world.slug)

    assert found(world, team_scan.redis_hits(settings.CELERY_BROKER_URL, needles(world))) == []
    assert team_scan.redis_hits(settings.CELERY_BROKER_URL, [f"{other_world.slug}#WEB#1"])
    assert report["places"]["redis"]["queued tasks"] == 1


def test_a_slug_that_is_a_word_of_other_keys_names_reaches_only_the_teams_keys() -> None:
    """A team called ``celery`` or ``tracker`` never takes the broker's queue, the job history or others' locks."""
    client = optional_redis.client(settings.REDIS_URL)
    record_run({"job": "backfill_project_counts", "status": "done"})
    client.set("tracker:job-lock:backfill_project_counts", "token")
    tasks.distinct_keys.apply_async(args=["tracker-celery"])  # waits in the queue ``celery``: no worker here
    cache.set(project_list_cache_key("celery"), [])
    try:
        for slug in ("celery", "tracker"):
            team = team_leftovers.Team(slug, offboarding_job=f"offboard_tenant:{slug}")
            assert redis_places.keys(team, apply=True) == (1 if slug == "celery" else 0)
            assert redis_places.job_history(team, apply=False) == 0
            assert redis_places.queued_tasks(team, apply=True) == 0
        assert client.llen("celery") >= 1
        assert client.exists("tracker:job-lock:backfill_project_counts", RUNS_KEY) == 2
        assert cache.get(project_list_cache_key("celery")) is None  # the team's own key went
    finally:
        client.delete("tracker:job-lock:backfill_project_counts")


# ------------------------------------------------------------------------------------------------
# A team is found by structure, never by words (review of issue 20, blocker 2): a slug that is also a
# word of a schedule's name, another team's title or a job's error reaches nothing but the team's own.
# ------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_offboarding_a_team_called_attachments_spares_the_global_schedules() -> None:
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    from tracker.schedules import DEFAULTS, install_defaults
    from tracker.services.team_leftovers.schedules import team_schedules

    install_defaults()
    every = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.HOURS)
    PeriodicTask.objects.create(  # another team's, named with the words of a team called "repair"
        name="repair counts of acme",
        task="tracker.tasks.refresh_project_counts",
        interval=every,
        args='["acme", "WEB"]',
    )
    PeriodicTask.objects.create(  # a job of no team whose arguments hold a slug-like word
        name="keys of archive", task="tracker.tasks.distinct_keys", interval=every, args='["archive"]'
    )
    for slug in ("attachments", "archive", "counts", "tables", "exports", "repair", "acme-2"):
        assert team_schedules(team_leftovers.Team(slug), apply=True) == 0, slug
    assert set(DEFAULTS) <= set(PeriodicTask.objects.values_list("name", flat=True))
    assert PeriodicTask.objects.filter(name__in=["repair counts of acme", "keys of archive"]).count() == 2
    kw = PeriodicTask.objects.create(
        name="counts", task="tracker.tasks.search_index_change", interval=every, kwargs='{"tenant": "acme"}'
    )
    assert team_schedules(team_leftovers.Team("acme"), apply=True) == 2  # by args, and by tenant=
    assert not PeriodicTask.objects.filter(pk=kw.pk).exists()


def _fan_out(tenant: str, title: str) -> dict[str, Any]:
    return {"stream": f"{tenant}#WEB#3", "kind": "issue.created", "title": title, "data": {"title": title}}


def test_a_team_called_design_leaves_another_teams_queued_tasks_about_a_design() -> None:
    """acme's fan-out and search update of "New design" stay queued when a team called ``design`` goes."""
    client = optional_redis.client(settings.CELERY_BROKER_URL)
    client.delete("celery")
    tasks.fan_out_event.apply_async(kwargs={"event": _fan_out("acme", "New design")})
    tasks.search_index_change.apply_async(kwargs={"tenant": "acme", "project_key": "DESIGN", "number": 3})
    tasks.send_notification_digest.apply_async(kwargs={"tenant": "acme", "username": "design", "title": "design"})
    tasks.refresh_project_counts.apply_async(("acme", "DESIGN"))
    tasks.import_github_export.apply_async(["acme", "design"])
    tasks.distinct_keys.apply_async(args=["design#WEB"])  # a job of no team: never taken out
    try:
        design = team_leftovers.Team("design", offboarding_job="offboard_tenant:design")
        assert redis_places.queued_tasks(design, apply=True) == 0
        assert client.llen("celery") == 6
        acme = team_leftovers.Team("acme", offboarding_job="offboard_tenant:acme")
        tasks.offboard_tenant.apply_async(["acme"])  # the offboarding itself, queued again: it stays
        assert redis_places.queued_tasks(acme, apply=False) == 5  # each found by its tenant argument
        assert redis_places.queued_tasks(acme, apply=True) == 5
        assert client.llen("celery") == 2
    finally:
        client.delete("celery")


@pytest.mark.django_db
def test_a_team_called_design_leaves_another_teams_task_records_and_job_history() -> None:
    """Records of acme's tasks whose arguments or results hold the word stay whole; acme's own go."""
    TaskResult.objects.create(
        task_id="acme-search",
        task_name="tracker.tasks.search_index_change",
        task_args=json.dumps("('acme', 'DESIGN', 3)"),
        task_kwargs=json.dumps("{'comment_key': 'design'}"),
        status="SUCCESS",
        result=json.dumps("indexed acme#DESIGN#3 'New design'"),
    )
    TaskResult.objects.create(
        task_id="keys",
        task_name="tracker.tasks.distinct_keys",
        task_args=json.dumps("('tracker-design',)"),
        status="FAILURE",
        result=json.dumps({"sample": ["acme#design", "design-2#WEB", "design"]}),
        traceback="NotFound: acme#design\nKeyError: 'design'",
    )
    fan = {"status": "SUCCESS", "name": "tracker.tasks.fan_out_event", "args": [], "result": None}
    fan["kwargs"] = {"event": _fan_out("acme", "New design")}
    app.backend.client.set("celery-task-meta-acme-fan", json.dumps(fan))
    record_run({"job": "import_upload:acme:design", "status": "failed", "error": "design: not a GitHub export"})
    record_run({"job": "distinct_keys:tracker-design", "status": "failed", "error": "NotFound: design-2#WEB"})
    capacity_stats.record("job", "distinct_keys:tracker-design", capacity.CapacityMeter())
    capacity_stats.record("job", "import_upload:acme:design", capacity.CapacityMeter())
    design = team_leftovers.Team("design", offboarding_job="offboard_tenant:design")

    for team_left in (team_leftovers.Team("tracker-design"), design):
        assert celery_results.task_results(team_left, apply=True) == {
            "deleted": 0,
            "redacted": 1 if team_left is design else 0,
        }
    assert json.loads(TaskResult.objects.get(task_id="keys").result) == {
        "sample": ["acme#design", "design-2#WEB"]  # only the entry equal to the slug (a team's partition key)
    }
    assert TaskResult.objects.filter(task_id="acme-search").exists()
    assert celery_results.redis_results(design, apply=True) == {"deleted": 0, "redacted": 0}
    assert redis_places.job_history(design, apply=True) == 0
    assert redis_places.capacity_entries(design, apply=True) == 0
    assert redis_places.job_history(team_leftovers.Team("tracker-design"), apply=True) == 0
    assert redis_places.capacity_entries(team_leftovers.Team("tracker-design"), apply=True) == 0
    assert len(optional_redis.client(settings.REDIS_URL).lrange(RUNS_KEY, 0, -1)) == 2

    acme = team_leftovers.Team("acme", offboarding_job="offboard_tenant:acme")
    assert celery_results.task_results(acme, apply=True) == {"deleted": 1, "redacted": 1}
    assert TaskResult.objects.get(task_id="keys").traceback == f"NotFound: {REMOVED}\nKeyError: 'design'"
    assert celery_results.redis_results(acme, apply=True) == {"deleted": 1, "redacted": 0}
    assert redis_places.job_history(acme, apply=True) == 1
    assert redis_places.capacity_entries(acme, apply=True) >= 1


def test_a_slug_that_is_a_word_of_a_cache_namespace_reaches_only_its_own_cached_values() -> None:
    cache.set(project_list_cache_key("acme"), [])
    cache.set(unread_cache_key("acme", "projects"), 1)
    cache.set(project_list_cache_key("projects"), [])
    client = optional_redis.client(settings.REDIS_URL)
    client.set("tracker:job-lock:distinct_keys:tracker-projects", "token")
    client.set("tracker:job-lock:import_upload:projects:01J", "token")
    try:
        team = team_leftovers.Team("projects", offboarding_job="offboard_tenant:projects")
        assert redis_places.keys(team, apply=False) == 2  # its project list and its import's lock
        assert redis_places.keys(team_leftovers.Team("tracker-projects"), apply=True) == 0
        assert redis_places.keys(team, apply=True) == 2
        assert cache.get(project_list_cache_key("acme")) == []
        assert cache.get(unread_cache_key("acme", "projects")) == 1
        assert client.exists("tracker:job-lock:distinct_keys:tracker-projects")
    finally:
        client.delete("tracker:job-lock:distinct_keys:tracker-projects", "tracker:job-lock:import_upload:projects:01J")


def test_every_task_names_its_team_where_its_signature_says() -> None:
    """``names.TASK_TEAM`` agrees with ``tracker.tasks``' signatures, and every other task is of no team."""
    import inspect

    from celery import Task

    declared = {name for name, value in vars(tasks).items() if isinstance(value, Task)}
    assert declared == set(TASK_TEAM) | TASKS_OF_NO_TEAM, declared ^ (set(TASK_TEAM) | TASKS_OF_NO_TEAM)
    for name, (param, position) in TASK_TEAM.items():
        parameters = inspect.signature(getattr(tasks, name).run).parameters
        if position < 0:
            assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()), name
        else:
            assert list(parameters)[position] == param, name
    stream = {"stream": "acme#WEB#3", "title": "design"}
    cases = [
        ("tracker.tasks.refresh_project_counts", ["acme", "WEB"], {}, "acme"),
        ("tracker.tasks.refresh_project_counts", [], {"tenant": "acme", "key": "WEB"}, "acme"),
        ("tracker.tasks.search_index_change", "('acme', 'WEB', 3)", "{}", "acme"),
        ("tracker.tasks.import_github_export", '["acme", "design"]', "{}", "acme"),
        ("tracker.tasks.fan_out_event", [], {"event": stream}, "acme"),
        ("tracker.tasks.fan_out_event", [{"tenant": "acme", "s": "x", "data": {"title": "design"}}], {}, "acme"),
        ("tracker.tasks.fan_out_event", "()", "{'event': {'stream': 'acme#WEB#3', 'title': 'New desi", "acme"),
        ("tracker.tasks.send_notification_digest", [], {"tenant": "acme", "title": "design"}, "acme"),
        ("tracker.tasks.distinct_keys", ["design"], {}, None),
        ("tracker.tasks.send_invitation_email", [7], {}, None),
    ]
    for task, args, kwargs, team in cases:
        assert task_team(task, args, kwargs) == team, (task, args, kwargs)
    body = '[[{"tenant": "acme", "kind": "issue.created", "s": "acme#WEB#3", "data": {"title": "New design"}}], {}, {}]'
    assert not team_leftovers.Team("design").owns_task("tracker.tasks.fan_out_event", *json.loads(body)[:2])
    assert team_leftovers.Team("acme").owns_task("tracker.tasks.fan_out_event", *json.loads(body)[:2])


def test_the_independent_scan_reads_gzip_files_and_every_page_of_tables(tmp_path: Path) -> None:
    """``team_scan`` keeps its docstring's promise: a ``.gz`` file is read decompressed, ListTables is paged."""
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "data.jsonl.gz").write_bytes(gzip.compress(b'{"stream": "quokka-1#WEB#1"}\n'))
    assert [h.where for h in team_scan.file_hits(tmp_path, ["quokka-1#"])] == [
        f"{tmp_path} events/data.jsonl.gz (content)"
    ]

    class Pages:
        def __init__(self) -> None:
            self.asked: list[dict[str, Any]] = []

        def list_tables(self, **request: Any) -> dict[str, Any]:
            self.asked.append(request)
            start = int(request.get("ExclusiveStartTableName", "t-0").split("-")[1])
            names = [f"t-{n}" for n in range(start + 1, min(start + 100, 250) + 1)]
            return {"TableNames": names, **({"LastEvaluatedTableName": names[-1]} if names[-1] != "t-250" else {})}

    client = Pages()
    assert team_scan.list_tables(client) == [f"t-{n}" for n in range(1, 251)]
    assert len(client.asked) == 3


@pytest.mark.django_db
def test_the_staff_audits_entries_of_no_team_are_the_teams_only_by_their_keys_value() -> None:
    """An entry written with no team column (its slug was no team then) is found by its key, never a word."""
    from tracker.audit.models import AuditEntry
    from tracker.services.admin.audit import team_item_entries

    for pk in ("acme#WEB", "acme-2#WEB", "labels"):
        key = json.dumps({"n": {"N": "1"}, "pk": {"S": pk}}, sort_keys=True)
        AuditEntry.objects.create(username="staff", action="item_change", tenant="", target=f"tracker-issues {key}")
    for slug in ("pk", "n", "web", "labels-2", "tracker"):
        assert team_item_entries(slug, apply=True) == 0, slug  # words of every target: none is theirs
    assert team_item_entries("acme", apply=True) == 1
    assert team_item_entries("labels", apply=True) == 1  # a key that is the slug itself
    assert list(AuditEntry.objects.values_list("target", flat=True)) == [
        'tracker-issues {"n": {"N": "1"}, "pk": {"S": "acme-2#WEB"}}'
    ]
