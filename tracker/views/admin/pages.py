"""What every admin DynamoDB page shares: the admin's chrome around a template, links to items."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse

from tracker import item_links
from tracker.selectors.admin.items import item_address

if TYPE_CHECKING:  # a type only: the item comes from a selector (lint-imports skips type-only imports)
    from pynamodb.models import Model


def admin_page(
    request: HttpRequest, template: str, title: str, context: dict[str, Any], status: int = 200
) -> TemplateResponse:
    """``template`` in the admin's chrome (site header, user links, the capacity footer)."""
    return TemplateResponse(
        request, template, {**admin.site.each_context(request), "title": title, **context}, status=status
    )


def item_url(table: str, key: dict[str, Any], view: str = "admin:ddb_item") -> str:
    """The item browser's page of the item with ``key`` (a signed link), or its delete page."""
    return f"{reverse(view, args=[table])}?key={item_links.key_encode(table=table, key=key)}"


def item_browser_url(item: Model) -> str:
    """The item browser's page of one of the app's items, where staff can edit it."""
    table, key = item_address(item)
    return item_url(table, key)
