"""Views of the item browser: browse (Query/Scan, 25 a page), item (fields, JSON, edit), delete."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

from ddbmodels.core import capacity
from tracker.admin import tables
from tracker.admin.browser import ddb, signed
from tracker.admin.forms_ddb import BrowseForm, ItemJsonForm
from tracker.exceptions import BadCursor

STALE = "This item changed since you loaded it — reload it and make your change again. Nothing was saved."
# Base table → (may items be deleted here, why). Anything not listed may not be deleted.
DELETE_POLICY: dict[str, tuple[bool, str]] = {
    "issues": (
        False,
        "Issues are tombstoned, never deleted: their number must stay taken (and a project's "
        "static item holds its whole collection).",
    ),
    "jobs": (False, "Job items carry the fencing tokens of the maintenance jobs."),
    "counters": (False, "Counters hand out order numbers: deleting one would reuse numbers."),
    "scores": (False, "Scores and award records must stay consistent with the issues that earned them."),
    "attachments": (False, "Attachments are reconciled with their files by a job; detach them in the app."),
    "orders": (True, "Orders may be deleted (their number is not reused: the counter only goes up)."),
    "events": (True, "Events may be deleted one by one (old periods are archived and dropped whole)."),
}


def _bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return HttpResponseBadRequest(render_to_string("400.html", {"message": message}, request=request))


def _reason(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Message") or error)


def delete_policy(table: str) -> tuple[bool, str]:
    return DELETE_POLICY.get(tables.base_name(table), (False, "This table is not on the delete allow-list."))


def field_rows(item: dict[str, Any]) -> list[dict[str, str]]:
    """Attribute → (type, readable value) for the fields table, attributes sorted by name."""
    rows = []
    for name in sorted(item):
        ((kind, raw),) = item[name].items()
        if kind in ("S", "N", "BOOL", "NULL"):
            shown = str(raw)
        else:
            shown = json.dumps(ddb.to_json(raw), ensure_ascii=False, sort_keys=True)
        rows.append({"name": name, "type": kind, "value": shown})
    return rows


def _item_url(table: str, key: dict[str, Any], view: str = "admin:ddb_item") -> str:
    return f"{reverse(view, args=[table])}?key={signed.key_encode(table=table, key=key)}"


def _with_cursor(request: HttpRequest, cursor: str) -> str:
    query = request.GET.copy()
    query["cursor"] = cursor
    if not cursor:
        del query["cursor"]  # the first page
    return f"?{query.urlencode()}"


def browse_view(request: HttpRequest, table: str) -> HttpResponse:
    description = tables.describe_app_table(table)
    index = request.GET.get("index") or None
    try:
        schema = ddb.key_schema(description, index)
    except StopIteration:
        raise Http404("No such index on this table.") from None
    table_schema = ddb.key_schema(description)
    form = BrowseForm(request.GET if request.GET.get("mode") else {"mode": "scan"}, schema=schema)
    context: dict[str, Any] = {
        **admin.site.each_context(request),
        "title": f"Browse {table}",
        "table": table,
        "index": index or "",
        "indexes": [i["IndexName"] for i in description.get("GlobalSecondaryIndexes", [])]
        + [i["IndexName"] for i in description.get("LocalSecondaryIndexes", [])],
        "schema": schema,
        "form": form,
        "items": [],
    }
    if form.is_valid():
        try:
            position = signed.cursor_decode(request.GET.get("cursor"), binding=form.binding(table, index))
        except BadCursor as error:
            return _bad_request(request, str(error))
        call = form.request(table, index)
        if position.start is not None:
            call["ExclusiveStartKey"] = position.start
        try:
            with capacity.measure() as meter:
                page = ddb.read_page(call, scan=form.cleaned_data["mode"] == "scan")
        except ClientError as error:
            form.add_error(None, f"DynamoDB refused the request: {_reason(error)}")
        else:
            binding = form.binding(table, index)
            back = position.back()
            context.update(
                items=[
                    {
                        "url": _item_url(table, {n: item[n] for n in table_schema.names}),
                        "fields": field_rows(item),
                        "json": ddb.dumps(item),
                    }
                    for item in page.items
                ],
                page_number=position.number,
                scanned=page.scanned,
                rcu=round(meter.rcu, 3),
                next_url=_with_cursor(
                    request, signed.cursor_encode(binding=binding, position=position.forward(page.last_key))
                )
                if page.last_key
                else "",
                previous_url=_with_cursor(request, signed.cursor_encode(binding=binding, position=back))
                if back is not None
                else "",
                first_url=_with_cursor(request, "") if position.number > 1 else "",
            )
    return render(request, "admin/ddb/browse.html", context)


def _load(request: HttpRequest, table: str) -> tuple[dict[str, Any], ddb.KeySchema, dict[str, Any], dict[str, Any]]:
    """(description, table key schema, key, item) of the item page; BadCursor / Http404."""
    description = tables.describe_app_table(table)
    schema = ddb.key_schema(description)
    key = signed.key_decode(request.GET.get("key"), table=table)
    if set(key) != set(schema.names):
        raise BadCursor("This item link does not match the table's key.")
    with capacity.measure():
        item = ddb.item_get(table, key)
    if item is None:
        raise Http404("No such item (deleted since?).")
    return description, schema, key, item


def item_view(request: HttpRequest, table: str) -> HttpResponse:
    try:
        _description, schema, key, item = _load(request, table)
    except BadCursor as error:
        return _bad_request(request, str(error))
    can_change = tables.can_change(request.user)
    if request.method == "POST" and not can_change:
        raise PermissionDenied("Changing DynamoDB data needs the tracker.change_tenant permission.")
    version = ddb.VERSION_ATTRIBUTES.get(tables.base_name(table))
    initial = {"item_json": ddb.dumps(item), "loaded": ddb.fingerprint(item)}
    form = ItemJsonForm(request.POST or None, initial=initial, key_names=schema.names, key=key)
    if request.method == "POST" and form.is_valid():
        try:
            if form.cleaned_data["loaded"] != ddb.fingerprint(item):
                raise ddb.StaleItem("fingerprint differs")
            ddb.item_put_unchanged(table, form.cleaned_data["item_json"], item, version=version)
        except ddb.StaleItem:
            messages.error(request, STALE)
        except ClientError as error:
            form.add_error(None, f"DynamoDB refused the item: {_reason(error)}")
        else:
            messages.success(request, "Saved (conditional PutItem: the item was unchanged since you loaded it).")
            return HttpResponseRedirect(request.get_full_path())
    allowed, why = delete_policy(table)
    context = {
        **admin.site.each_context(request),
        "title": f"Item of {table}",
        "table": table,
        "key_json": ddb.dumps(key, pretty=False),
        "fields": field_rows(item),
        "json": ddb.dumps(item),
        "form": form if can_change else None,
        "can_change": can_change,
        "version": version,
        "delete_allowed": allowed,
        "delete_why": why,
        "delete_url": _item_url(table, key, "admin:ddb_item_delete"),
    }
    return render(request, "admin/ddb/item.html", context)


class DeleteForm(forms.Form):
    loaded = forms.CharField(widget=forms.HiddenInput, max_length=64)


def item_delete_view(request: HttpRequest, table: str) -> HttpResponse:
    try:
        _description, _schema, key, item = _load(request, table)
    except BadCursor as error:
        return _bad_request(request, str(error))
    can_change = tables.can_change(request.user)
    allowed, why = delete_policy(table)
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("Changing DynamoDB data needs the tracker.change_tenant permission.")
        if not allowed:
            raise PermissionDenied(why)
        form = DeleteForm(request.POST)
        try:
            if not form.is_valid() or form.cleaned_data["loaded"] != ddb.fingerprint(item):
                raise ddb.StaleItem("fingerprint differs")
            version = ddb.VERSION_ATTRIBUTES.get(tables.base_name(table))
            ddb.item_delete_unchanged(table, key, item, version=version)
        except ddb.StaleItem:
            messages.error(request, STALE)
        else:
            messages.success(request, f"Deleted the item {ddb.dumps(key, pretty=False)} from {table}.")
            return HttpResponseRedirect(reverse("admin:ddb_browse", args=[table]))
    context = {
        **admin.site.each_context(request),
        "title": f"Delete an item of {table}?",
        "table": table,
        "key_json": ddb.dumps(key, pretty=False),
        "fields": field_rows(item),
        "json": ddb.dumps(item),
        "can_change": can_change,
        "confirm_delete": True,
        "delete_allowed": allowed,
        "delete_why": why,
        "loaded": ddb.fingerprint(item),
        "item_url": _item_url(table, key),
    }
    return render(request, "admin/ddb/item.html", context)
