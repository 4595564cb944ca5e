"""The Jobs pages: start any maintenance job, watch it run, see the history of runs."""

from __future__ import annotations

import json
import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_http_methods

from tracker.exceptions import BadRequest
from tracker.forms.admin.jobs import JOB_FORMS, JobForm
from tracker.jobs import RUNS_KEPT
from tracker.selectors.admin.job_results import job_answer
from tracker.selectors.admin.jobs import job_history, job_status, job_task_name
from tracker.services.admin.jobs import job_may_start, job_require, job_start
from tracker.views.admin.pages import admin_page


@require_http_methods(["GET", "POST"])
def jobs_view(request: HttpRequest) -> HttpResponse:
    """GET: a form per job the user may start, and the history. POST: queue one job (audited), if permitted.

    Jobs that only read need tracker.change_tenant; jobs that write or delete need audit.run_destructive_jobs.
    """
    bound: tuple[str, JobForm] | None = None
    if request.method == "POST":
        key = request.POST.get("job", "")
        if key not in JOB_FORMS:
            raise BadRequest("Unknown job.")
        job_require(request.user, JOB_FORMS[key].task)  # a 403 before the form is read: nothing queued
        form = JOB_FORMS[key](request.POST, prefix=key)
        if form.is_valid():
            task_id = job_start(task=form.task, params=form.kwargs(), by=request.user, title=form.title)  # type: ignore[arg-type]
            messages.success(request, f"{form.title}: queued as {task_id}.")
            return redirect("admin:ddb_job", task_id=task_id)
        bound = (key, form)
    startable = {key for key, form_class in JOB_FORMS.items() if job_may_start(request.user, form_class.task)}
    forms = [  # staff are shown the forms of the jobs they may start, and the runs
        (key, bound[1] if bound and bound[0] == key else form_class(prefix=key))
        for key, form_class in JOB_FORMS.items()
        if key in startable
    ]
    context = {
        "can_change": bool(startable),
        "all_jobs": len(startable) == len(JOB_FORMS),
        "forms": forms,
        "history": job_history(),
        "runs_kept": RUNS_KEPT,
    }
    return admin_page(request, "admin/ddb/jobs.html", "Maintenance jobs", context, status=400 if bound else 200)


@require_GET
def job_view(request: HttpRequest, task_id: uuid.UUID) -> HttpResponse:
    """One run: a progress bar polled from status.json (or refreshed by hand), then its result."""
    status = job_status(task_id=task_id)
    result = status.get("result") if isinstance(status.get("result"), dict) else None
    context = {
        "task_name": job_task_name(task_id=task_id),
        "status": status,
        "result": result,
        "answer": job_answer(result) if result else None,
        # the same JSON the page's script shows once it polls (not a Python repr until then)
        "result_json": json.dumps(result, indent=2, ensure_ascii=False, default=str) if result else "",
    }
    return admin_page(request, "admin/ddb/job.html", f"Job {task_id}", context)


@require_GET
def job_status_view(request: HttpRequest, task_id: uuid.UUID) -> JsonResponse:
    """State, PROGRESS meta (stage/done/total), and the result with its capacity once finished."""
    return JsonResponse(job_status(task_id=task_id))
