"""The admin's DynamoDB item browser: Query/Scan pages with signed cursors, conditional edits, deletes."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import Client

from ddbmodels import issues
from ddbmodels.core import connection
from ddbmodels.core import items as ddb
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.issues import IssueItem
from ddbmodels.orders import OrderItem
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, staff_user, text
from tests.tracker.orders_helpers import new_order
from tracker import cursors, item_json
from tracker import item_links as signed
from tracker.exceptions import BadCursor
from tracker.views.admin.items import STALE

ISSUES = "issues"


def stored(world: World, issue: IssueItem) -> IssueItem:
    """The issue as DynamoDB holds it now (consistent read); fails the test when it is gone."""
    found = load(world, issue.number)
    assert found is not None, f"issue {issue.number} is gone"
    return found


def browse_url(base: str, **params: str) -> str:
    return f"/admin/ddb/tables/{connection.table_name(base)}/?{urlencode(params)}"


def item_links(response: Any) -> list[str]:
    return [html.unescape(u) for u in re.findall(r'href="(/admin/ddb/tables/[^"/]+/item/\?key=[^"]+)"', text(response))]


def pager(response: Any, rel: str) -> str | None:
    match = re.search(rf'href="([^"]+)" id="{rel}-page"', text(response))
    return html.unescape(match.group(1)) if match else None


def issue_item_url(client: Client, world: World, number: int) -> str:
    response = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB", sk_op="=", sk=str(number)))
    (link,) = item_links(response)
    return link


def edit_form(response: Any) -> dict[str, Any]:
    """The item JSON of the edit form, parsed, and its loaded fingerprint."""
    match = re.search(r"<textarea[^>]*>(.*?)</textarea>", text(response), re.S)
    assert match, "no edit form on the page"
    return {"item": json.loads(html.unescape(match.group(1))), "loaded": hidden_value(response, "loaded")}


def open_edit_form(client: Client, world: World, editor: str, title: str) -> tuple[IssueItem, str, dict[str, Any]]:
    """As a new staff user who may change items, open the edit form of a new issue ``title``: issue, URL, form."""
    client.force_login(staff_user(editor, may_change=True))
    issue = new_issue(world, title)
    url = issue_item_url(client, world, issue.number)
    return issue, url, edit_form(client.get(url))


def post_edit(client: Client, url: str, item: dict[str, Any], loaded: str) -> Any:
    return client.post(url, {"item_json": json.dumps(item), "loaded": loaded})


def test_browsing_by_partition_key_finds_a_created_projects_issues(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-1", may_change=False))
    new_issue(world, "Fix the login page")
    new_issue(world, "Write the docs")
    response = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB"))
    assert response.status_code == 200
    page = text(response)
    assert "Fix the login page" in page
    assert "Write the docs" in page
    assert len(item_links(response)) == 3  # the project's static item and two issues
    assert re.search(r'id="page-rcu">[0-9.]+ RCU', page)
    ranged = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB", sk_op=">=", sk="2"))
    assert "Write the docs" in text(ranged)
    assert "Fix the login page" not in text(ranged)


def test_a_non_number_sort_key_is_a_form_error(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-2", may_change=False))
    response = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB", sk_op="=", sk="two"))
    assert response.status_code == 200
    assert "is not a number" in text(response)
    assert item_links(response) == []


def test_the_projects_index_is_browsable_by_tenant(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-3", may_change=False))
    response = client.get(browse_url(ISSUES, index="projects", mode="query", pk=world.slug))
    assert response.status_code == 200
    assert len(item_links(response)) == 1
    assert "WEB" in text(response)


def test_next_and_previous_cursors_walk_the_pages_and_a_tampered_cursor_is_400(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-4", may_change=False))
    for n in range(11):  # the project's item and 11 issues: pages of 10 and 2
        new_issue(world, f"Issue number {n + 1}")
    first = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB"))
    assert len(item_links(first)) == ddb.PAGE_SIZE == 10
    assert pager(first, "previous") is None
    next_url = pager(first, "next")
    assert next_url
    second = client.get(f"/admin/ddb/tables/{connection.table_name(ISSUES)}/{next_url}")
    assert second.status_code == 200
    assert len(item_links(second)) == 2
    assert "Issue number 11" in text(second)
    assert "Issue number 1<" not in text(second)
    assert not [key for key in item_keys(second) if key in item_keys(first)]
    previous_url = pager(second, "previous")
    assert previous_url
    back = client.get(f"/admin/ddb/tables/{connection.table_name(ISSUES)}/{previous_url}")
    assert item_keys(back) == item_keys(first)

    cursor = re.search(r"cursor=([^&]+)", next_url).group(1)  # type: ignore[union-attr]
    tampered = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB", cursor=cursor[:-2] + "xy"))
    assert tampered.status_code == 400
    foreign = client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#OTHER", cursor=cursor))
    assert foreign.status_code == 400


def test_editing_an_issue_item_as_json_saves_it(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "editor-1", "Old title")
    form["item"]["t"] = {"S": "New title"}
    response = post_edit(client, url, form["item"], form["loaded"])
    assert response.status_code == 302
    saved = stored(world, issue)
    assert saved.title == "New title"
    assert saved.version == issue.version + 1  # the app's optimistic locking sees the admin's save
    assert any("Saved" in m for m in flash(client.get(url)))


def test_a_stale_edit_is_refused_and_overwrites_nothing(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "editor-2", "Original")
    issues.issue_update(issue, title="Changed meanwhile", description="", priority="high", assignee=None, labels=[])
    form["item"]["t"] = {"S": "Admin's stale title"}
    response = post_edit(client, url, form["item"], form["loaded"])
    assert response.status_code == 200
    assert STALE in text(response)
    kept = stored(world, issue)
    assert kept.title == "Changed meanwhile"
    assert kept.priority == "high"


def test_changing_a_key_attribute_is_refused(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "editor-3", "Keyed")
    form["item"]["n"] = {"N": "999"}
    response = post_edit(client, url, form["item"], form["loaded"])
    assert response.status_code == 200
    assert "may not change" in text(response)
    assert issues.issue_get(tenant=world.slug, project_key="WEB", number=999, consistent=True) is None
    assert stored(world, issue).version == issue.version


def test_malformed_json_is_a_form_error(client: Client, world: World) -> None:
    issue, url, form = open_edit_form(client, world, "editor-4", "Parsed")
    loaded = form["loaded"]
    response = client.post(url, {"item_json": '{"pk": {"S": ', "loaded": loaded})
    assert response.status_code == 200
    assert "Malformed JSON" in text(response)
    bad_type = client.post(url, {"item_json": '{"pk": {"X": 1}}', "loaded": loaded})
    assert "not a valid DynamoDB type" in text(bad_type)
    assert stored(world, issue).version == issue.version


def test_staff_without_change_permission_read_only_and_get_403_on_post(client: Client, world: World) -> None:
    client.force_login(staff_user("reader-1", may_change=False))
    issue = new_issue(world, "Read me")
    url = issue_item_url(client, world, issue.number)
    page = client.get(url)
    assert page.status_code == 200
    assert "Read me" in text(page)
    assert "Read only" in text(page)
    assert 'id="edit-form"' not in text(page)
    item = json.loads(html.unescape(re.search(r'<pre id="item-json">(.*?)</pre>', text(page), re.S).group(1)))  # type: ignore[union-attr]
    item["t"] = {"S": "Hijacked"}
    response = client.post(url, {"item_json": json.dumps(item), "loaded": "x"})
    assert response.status_code == 403
    assert stored(world, issue).title == "Read me"


def test_deleting_is_refused_on_the_issues_table(client: Client, world: World) -> None:
    client.force_login(staff_user("deleter-1", may_change=True))
    issue = new_issue(world, "Keep me")
    url = issue_item_url(client, world, issue.number)
    page = client.get(url)
    assert "tombstoned" in text(page)
    assert "deletelink" not in text(page)
    delete_url = url.replace("/item/?", "/item/delete/?")
    assert 'id="delete-form"' not in text(client.get(delete_url))
    response = client.post(delete_url, {"loaded": edit_form(page)["loaded"]})
    assert response.status_code == 403
    assert load(world, issue.number) is not None


def test_deleting_an_order_asks_for_confirmation_then_deletes_it(client: Client, world: World) -> None:
    client.force_login(staff_user("deleter-2", may_change=True))
    order = new_order(world)
    (url,) = item_links(client.get(browse_url("orders", mode="query", pk=world.slug)))
    delete_href = re.search(r'href="([^"]+)" class="deletelink"', text(client.get(url)))
    assert delete_href
    confirm = client.get(html.unescape(delete_href.group(1)))
    assert confirm.status_code == 200
    assert 'id="delete-form"' in text(confirm)
    assert OrderItem.count(world.slug, consistent_read=True) == 1  # nothing deleted by looking
    response = client.post(html.unescape(delete_href.group(1)), {"loaded": hidden_value(confirm, "loaded")})
    assert response.status_code == 302
    assert OrderItem.count(world.slug, consistent_read=True) == 0
    assert order.number > 0


def test_a_tampered_item_key_is_a_400(client: Client, world: World) -> None:
    client.force_login(staff_user("prober-1", may_change=False))
    url = issue_item_url(client, world, 0)
    assert client.get(url[:-3] + "abc").status_code == 400
    assert client.get(url.replace(connection.table_name(ISSUES), connection.table_name("orders"))).status_code == 400


def test_an_order_without_a_version_saves_only_while_every_attribute_is_unchanged(client: Client, world: World) -> None:
    client.force_login(staff_user("editor-5", may_change=True))
    order = new_order(world, quantity=3)
    (url,) = item_links(client.get(browse_url("orders", mode="query", pk=world.slug)))
    form = edit_form(client.get(url))
    form["item"]["q"] = {"N": "5"}
    assert post_edit(client, url, form["item"], form["loaded"]).status_code == 302
    assert OrderItem.get(world.slug, order.placed, consistent_read=True).quantity == 5

    stale = edit_form(client.get(url))
    OrderItem(world.slug, order.placed).update(actions=[OrderItem.status.set("cancelled")])
    stale["item"]["q"] = {"N": "9"}
    response = post_edit(client, url, stale["item"], stale["loaded"])
    assert STALE in text(response)
    order_now = OrderItem.get(world.slug, order.placed, consistent_read=True)
    assert order_now.quantity == 5
    assert order_now.status == "cancelled"


def scan_all(client: Client, **params: str) -> list[str]:
    """Every page of a Scan (a filtered Scan may return empty pages before the matches): each page's text."""
    pages = [text(client.get(browse_url("orders", mode="scan", **params)))]
    while match := re.search(r'href="([^"]+)" id="next-page"', pages[-1]):
        pages.append(
            text(client.get(f"/admin/ddb/tables/{connection.table_name('orders')}/{html.unescape(match.group(1))}"))
        )
    return pages


def test_a_scan_with_a_filter_shows_only_matching_items(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-5", may_change=False))
    new_order(world, product="storage")
    new_order(world, product="seats")
    mine = scan_all(client, fattr="c", fval=world.slug, ftype="S")
    assert sum(len(re.findall(r'class="module ddb-item"', page)) for page in mine) == 2
    storage = [page.split('id="page-info"', 1)[1] for page in scan_all(client, fattr="p", fval="storage", ftype="S")]
    assert any(world.slug in page for page in storage)
    assert not any("seats" in page for page in storage)


def test_the_conditional_put_itself_refuses_an_item_changed_after_it_was_read(world: World) -> None:
    """The race the fingerprint check cannot see: a write between the page's read and its PutItem."""
    issue = new_issue(world, "Raced")
    issues_table = connection.table_name(ISSUES)
    key = {"pk": {"S": issue.pk}, "n": {"N": str(issue.number)}}
    read = ddb.item_get(issues_table, key)
    assert read is not None
    issues.issue_update(issue, title="Won the race", description="", priority="low", assignee=None, labels=[])
    with pytest.raises(ChangedSinceRead):
        ddb.item_put_unchanged(issues_table, {**read, "t": {"S": "Lost"}}, read, version="v")
    assert stored(world, issue).title == "Won the race"

    order = new_order(world)
    orders_table = connection.table_name("orders")
    order_key = {"c": {"S": world.slug}, "t": {"S": order.placed}}
    order_read = ddb.item_get(orders_table, order_key)
    assert order_read is not None
    OrderItem(world.slug, order.placed).update(actions=[OrderItem.status.set("cancelled")])
    with pytest.raises(ChangedSinceRead):
        ddb.item_put_unchanged(orders_table, {**order_read, "q": {"N": "7"}}, order_read, version=None)
    with pytest.raises(ChangedSinceRead):
        ddb.item_delete_unchanged(orders_table, order_key, order_read, version=None)
    assert OrderItem.get(world.slug, order.placed, consistent_read=True).status == "cancelled"


def item_keys(response: Any) -> list[dict[str, Any]]:
    """The keys of the items a browse page links to (links are signed with a time: compare keys)."""
    table = connection.table_name(ISSUES)
    return [signed.key_decode(link.split("?key=", 1)[1], table=table) for link in item_links(response)]


def page_number(response: Any) -> int:
    match = re.search(r'id="page-info">Page (\d+):', text(response))
    assert match, "no page number"
    return int(match.group(1))


def test_paging_far_keeps_links_short_and_previous_works_back_through_the_history(
    client: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ddb, "PAGE_SIZE", 2)  # 31 items (project + 30 issues): 16 pages
    client.force_login(staff_user("browser-far", may_change=False))
    for n in range(30):
        new_issue(world, f"Far issue {n + 1}")
    base = f"/admin/ddb/tables/{connection.table_name(ISSUES)}/"
    url = browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB")
    seen: dict[int, list[dict[str, Any]]] = {}
    lengths: list[int] = []
    for number in range(1, 15):
        response = client.get(url)
        assert page_number(response) == number
        seen[number] = item_keys(response)
        next_url = pager(response, "next")
        assert next_url
        lengths.append(len(next_url))
        url = f"{base}{next_url}"
    # The links stop growing once the history is full (HISTORY start keys).
    assert max(lengths[signed.HISTORY :]) <= lengths[signed.HISTORY - 1] + 8
    # Back from page 15, "previous" walks the pages it remembers, each exactly as first seen.
    response = client.get(url)
    number = page_number(response)
    assert number == 15
    while (previous := pager(response, "previous")) is not None:
        response = client.get(f"{base}{previous}")
        number -= 1
        assert page_number(response) == number
        assert item_keys(response) == seen[number]
    assert number == 15 - signed.HISTORY + 1  # as far back as the history reaches…
    first = pager(response, "first")  # …then "first" goes to the start
    assert first
    response = client.get(f"{base}{first}")
    assert page_number(response) == 1
    assert item_keys(response) == seen[1]
    assert pager(response, "first") is None


@pytest.mark.parametrize(
    ("number", "starts"),
    [
        (0, [None]),  # no page 0
        (3, [None, None, None]),  # only page 1 starts with none
        (2, [None, {"pk": {"S": "x"}}, {"pk": {"S": "y"}}]),  # more starts than pages
        (5, [None, {"pk": {"S": "x"}}]),  # a history reaching page 1 must hold every page
    ],
)
def test_a_signed_but_inconsistent_cursor_is_refused(number: int, starts: list[Any]) -> None:
    wired = [None if s is None else json.dumps(item_json.to_json(s), sort_keys=True) for s in starts]
    token = cursors.sign(signed._CURSOR_SALT, listing="binding", n=number, s=wired)
    with pytest.raises(BadCursor):
        signed.cursor_decode(token, binding="binding")


def test_the_fields_table_names_each_model_field_next_to_its_short_stored_name(client: Client, world: World) -> None:
    client.force_login(staff_user("browser-names", may_change=False))
    issue = new_issue(world, "Named fields")
    url = issue_item_url(client, world, issue.number)
    pages = [text(client.get(url)), text(client.get(browse_url(ISSUES, mode="query", pk=f"{world.slug}#WEB")))]
    for page in pages:
        assert '<td><code>t</code></td><td class="ddb-field-name">title</td><td>S</td><td>Named fields</td>' in page
        assert '<td><code>v</code></td><td class="ddb-field-name">version</td><td>N</td>' in page
        assert '<div class="ddb-fields-box">' in page
        assert "tracker/admin/item_browser.css" in page.split("</head>", 1)[0]  # in the head, not the body


def test_field_names_come_from_the_registered_model_and_its_item_kinds() -> None:
    names = ddb.field_names(connection.table_name(ISSUES))
    assert (names["pk"], names["n"], names["k"], names["t"], names["v"]) == ("pk", "number", "kind", "title", "version")
    assert ddb.field_names("some-table-no-model-owns") == {}


def test_a_table_no_model_owns_shows_a_dash_for_the_model_field(client: Client, tables: Any) -> None:
    from tests.raw_tables import collection_items, put_items

    name = tables("S", "N")
    put_items(name, collection_items("S", "solo", "N", [1]))
    client.force_login(staff_user("browser-raw", may_change=False))
    page = text(client.get(f"/admin/ddb/tables/{name}/?mode=scan"))
    assert '<td><code>pk</code></td><td class="ddb-field-name">–</td><td>S</td><td>solo</td>' in page
