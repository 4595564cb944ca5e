"""Views of the item browser: browse (Query/Scan, 10 a page), item (fields, JSON, edit), delete."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from tracker import item_json, item_links
from tracker.error_pages import ITEM_STALE
from tracker.forms.admin.items import BrowseForm, DeleteItemForm, ItemJsonForm
from tracker.selectors.admin.items import LoadedItem, browsable, browse_page, field_names, item_load
from tracker.services.admin.items import delete_policy, item_delete, item_save
from tracker.services.permissions import NO_RAW_EDITS, staff_can_edit_raw_items
from tracker.views.admin.pages import admin_page, item_url

STALE = ITEM_STALE  # on the edit form; a stale delete is the same words on a 409 page
NO_CHANGE = NO_RAW_EDITS  # tracker.change_tenant (renaming teams) does not give raw edits


def field_rows(item: dict[str, Any], names: dict[str, str] | None = None) -> list[dict[str, str]]:
    """Attribute → (model field name, type, readable value) for the fields table, sorted by stored name."""
    rows = []
    for name in sorted(item):
        ((kind, raw),) = item[name].items()
        if kind in ("S", "N", "BOOL", "NULL"):
            shown = str(raw)
        else:
            shown = json.dumps(item_json.to_json(raw), ensure_ascii=False, sort_keys=True)
        rows.append({"name": name, "field": (names or {}).get(name, ""), "type": kind, "value": shown})
    return rows


def _with_cursor(request: HttpRequest, cursor: str) -> str:
    query = request.GET.copy()
    query["cursor"] = cursor
    if not cursor:
        del query["cursor"]  # the first page
    return f"?{query.urlencode()}"


def browse_view(request: HttpRequest, table: str) -> HttpResponse:
    index = request.GET.get("index") or None
    target = browsable(table=table, index=index)
    form = BrowseForm(request.GET if request.GET.get("mode") else {"mode": "scan"}, schema=target.schema)
    context: dict[str, Any] = {
        "table": table,
        "index": index or "",
        "indexes": target.indexes,
        "schema": target.schema,
        "form": form,
        "items": [],
    }
    if form.is_valid():
        binding = form.binding(table, index)
        position = item_links.cursor_decode(request.GET.get("cursor"), binding=binding)
        try:
            read = browse_page(
                request=form.request(table, index), scan=form.cleaned_data["mode"] == "scan", start=position.start
            )
        except InvalidInput as error:  # DynamoDB refused the Query or Scan: say why on the form
            form.add_error(None, str(error))
        else:
            page, back = read.page, position.back()
            names = field_names(table=table)
            context.update(
                items=[
                    {
                        "url": item_url(table, {n: item[n] for n in target.table_schema.names}),
                        "fields": field_rows(item, names),
                        "json": item_json.dumps(item),
                    }
                    for item in page.items
                ],
                page_number=position.number,
                scanned=page.scanned,
                rcu=read.rcu,
                next_url=_with_cursor(
                    request, item_links.cursor_encode(binding=binding, position=position.forward(page.last_key))
                )
                if page.last_key
                else "",
                previous_url=_with_cursor(request, item_links.cursor_encode(binding=binding, position=back))
                if back is not None
                else "",
                first_url=_with_cursor(request, "") if position.number > 1 else "",
            )
    return admin_page(request, "admin/ddb/browse.html", f"Browse {table}", context)


def _item_context(loaded: LoadedItem) -> dict[str, Any]:
    allowed, why = delete_policy(loaded.table)
    return {
        "table": loaded.table,
        "key_json": item_json.dumps(loaded.key, pretty=False),
        "fields": field_rows(loaded.item, field_names(table=loaded.table)),
        "json": item_json.dumps(loaded.item),
        "delete_allowed": allowed,
        "delete_why": why,
    }


def item_view(request: HttpRequest, table: str) -> HttpResponse:
    loaded = item_load(table=table, token=request.GET.get("key"))
    can_change = staff_can_edit_raw_items(request.user)
    if request.method == "POST" and not can_change:
        raise PermissionDenied(NO_CHANGE)
    initial = {"item_json": item_json.dumps(loaded.item), "loaded": loaded.fingerprint}
    form = ItemJsonForm(request.POST or None, initial=initial, key_names=loaded.schema.names, key=loaded.key)
    if request.method == "POST" and form.is_valid():
        try:
            saved = item_save(
                loaded=loaded,
                fingerprint=form.cleaned_data["loaded"],
                new=form.cleaned_data["item_json"],
                by=request.user,  # type: ignore[arg-type]  # admin_view: a signed-in staff user
            )
        except (ChangedSinceRead, InvalidInput) as error:  # stale, or refused by DynamoDB: the typed JSON stays
            form.add_error(None, STALE if isinstance(error, ChangedSinceRead) else str(error))
        else:
            if saved:
                messages.success(request, "Saved (conditional PutItem: the item was unchanged since you loaded it).")
            else:
                messages.info(request, "Nothing to save: the item is as you loaded it (nothing written).")
            return HttpResponseRedirect(request.get_full_path())
    context = {
        **_item_context(loaded),
        "form": form if can_change else None,
        "can_change": can_change,
        "version": loaded.version,
        "delete_url": item_url(table, loaded.key, "admin:ddb_item_delete"),
    }
    return admin_page(request, "admin/ddb/item.html", f"Item of {table}", context)


def item_delete_view(request: HttpRequest, table: str) -> HttpResponse:
    """GET: confirm. POST (permitted staff, allowed tables): delete if unchanged; a stale page is a 409."""
    loaded = item_load(table=table, token=request.GET.get("key"))
    can_change = staff_can_edit_raw_items(request.user)
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied(NO_CHANGE)
        form = DeleteItemForm(request.POST)
        fingerprint = form.cleaned_data["loaded"] if form.is_valid() else ""
        item_delete(loaded=loaded, fingerprint=fingerprint, by=request.user)  # type: ignore[arg-type]
        messages.success(request, f"Deleted the item {item_json.dumps(loaded.key, pretty=False)} from {table}.")
        return HttpResponseRedirect(reverse("admin:ddb_browse", args=[table]))
    context = {
        **_item_context(loaded),
        "can_change": can_change,
        "confirm_delete": True,
        "loaded": loaded.fingerprint,
        "item_url": item_url(table, loaded.key),
    }
    return admin_page(request, "admin/ddb/item.html", f"Delete an item of {table}?", context)
