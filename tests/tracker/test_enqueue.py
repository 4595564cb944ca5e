"""The one enqueue seam: services ask for background work by task name and never import tracker.tasks."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracker import enqueue, tasks

ROOT = Path(__file__).resolve().parents[2]

# Every module that asks for background work, imported in a fresh process: tracker.tasks stays out.
QUEUEING = [
    "tracker.services.issues",
    "tracker.services.imports",
    "tracker.services.offboarding",
    "tracker.services.inbox",
    "tracker.services.admin.jobs",
    "tracker.forms.admin.jobs",
    "tracker.search.indexing",
]
FRESH = """
import sys, django
django.setup()
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
print("tracker.tasks" in sys.modules)
from tracker import enqueue
enqueue.task(enqueue.OFFBOARD_TENANT)  # a process that never loaded the tasks imports them now
print("tracker.tasks" in sys.modules)
"""


def test_queueing_work_loads_no_task_module_until_a_task_is_asked_for_by_name() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"}
    answer = subprocess.run(
        [sys.executable, "-c", FRESH, *QUEUEING], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split() == ["False", "True"]


# A threaded web server's first requests ask for different tasks at once, in a process that has not
# loaded them. Celery's autodiscovery answered the second caller with nothing while the first was
# importing (NotRegistered: a 500 on the admin's job form in bench/load.py's run).
AT_ONCE = """
import sys, threading, django
django.setup()
from tracker import enqueue
names = sorted(enqueue.NAMES) * 4
barrier = threading.Barrier(len(names))
failed = []
def ask(name):
    barrier.wait()
    try:
        enqueue.task(name)
    except Exception as error:
        failed.append(repr(error))
threads = [threading.Thread(target=ask, args=(name,)) for name in names]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(names), len(failed), failed[:1])
"""


def test_threads_asking_for_tasks_at_once_in_a_fresh_process_all_get_them() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"}
    for _ in range(3):
        answer = subprocess.run(
            [sys.executable, "-c", AT_ONCE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert answer.returncode == 0, answer.stderr
        asked, failed, first = answer.stdout.split(maxsplit=2)
        assert (int(asked), int(failed)) == (4 * len(enqueue.NAMES), 0), first


def test_every_task_name_of_the_seam_is_the_task_tracker_tasks_defines() -> None:
    defined = {
        node.name
        for node in ast.parse((ROOT / "tracker" / "tasks.py").read_text()).body
        if isinstance(node, ast.FunctionDef) and any("shared_task" in ast.unparse(d) for d in node.decorator_list)
    }
    assert {name.removeprefix(enqueue.PREFIX) for name in enqueue.NAMES} == defined
    for name in enqueue.NAMES:
        assert enqueue.task(name) is getattr(tasks, name.removeprefix(enqueue.PREFIX))._get_current_object()


def test_a_name_no_task_has_is_a_key_error_not_a_message_nobody_consumes() -> None:
    with pytest.raises(KeyError):
        enqueue.task(enqueue.PREFIX + "no_such_task")


def test_tasks_import_the_services_at_the_top_and_nothing_inside_a_function() -> None:
    tree = ast.parse((ROOT / "tracker" / "tasks.py").read_text())
    inner = [
        node.lineno
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert inner == []
