"""The Jobs pages: start any maintenance job, watch it run, see the history of runs."""

from __future__ import annotations

import uuid
from typing import Any

from celery.result import AsyncResult
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods
from django_celery_results.models import TaskResult

from tracker.admin import tables
from tracker.admin.forms_jobs import JOB_FORMS, JobForm
from tracker.celery import app
from tracker.jobs import RUNS_KEPT, recent_runs

HISTORY_ROWS = 50


@require_http_methods(["GET", "POST"])
def jobs_view(request: HttpRequest) -> HttpResponse:
    """GET: a form per job and the history. POST (permitted staff only): queue one job."""
    can_change = tables.can_change(request.user)
    bound: tuple[str, JobForm] | None = None
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("Starting jobs needs the tracker.change_tenant permission.")
        key = request.POST.get("job", "")
        if key not in JOB_FORMS:
            return HttpResponseBadRequest("Unknown job.")
        form = JOB_FORMS[key](request.POST, prefix=key)
        if form.is_valid():
            started = form.task.delay(**form.kwargs())
            messages.success(request, f"{form.title}: queued as {started.id}.")
            return redirect("admin:ddb_job", task_id=started.id)
        bound = (key, form)
    forms = [
        (key, bound[1] if bound and bound[0] == key else form_class(prefix=key))
        for key, form_class in JOB_FORMS.items()
    ]
    context = {
        **admin.site.each_context(request),
        "title": "Maintenance jobs",
        "can_change": can_change,
        "forms": forms,
        "history": recent_runs(HISTORY_ROWS),
        "runs_kept": RUNS_KEPT,
    }
    return TemplateResponse(request, "admin/ddb/jobs.html", context, status=400 if bound else 200)


def _status(task_id: uuid.UUID) -> dict[str, Any]:
    result = AsyncResult(str(task_id), app=app)
    state = result.state
    data: dict[str, Any] = {"task_id": str(task_id), "state": state, "ready": result.ready()}
    info = result.info
    if state == "PROGRESS" and isinstance(info, dict):
        data["progress"] = {k: info.get(k) for k in ("stage", "done", "total", "keys", "requests")}
    elif state == "SUCCESS":
        data["result"] = info
    elif state in {"FAILURE", "REVOKED"}:
        data["error"] = repr(info)
    return data


@require_GET
def job_view(request: HttpRequest, task_id: uuid.UUID) -> HttpResponse:
    """One run: a progress bar polled from status.json (or refreshed by hand), then its result."""
    status = _status(task_id)
    task = TaskResult.objects.filter(task_id=str(task_id)).first()
    context = {
        **admin.site.each_context(request),
        "title": f"Job {task_id}",
        "task_name": task.task_name if task else None,
        "status": status,
        "result": status.get("result") if isinstance(status.get("result"), dict) else None,
    }
    return TemplateResponse(request, "admin/ddb/job.html", context)


@require_GET
def job_status_view(request: HttpRequest, task_id: uuid.UUID) -> JsonResponse:
    """State, PROGRESS meta (stage/done/total), and the result with its capacity once finished."""
    return JsonResponse(_status(task_id))
