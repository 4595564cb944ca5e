"""A team's managed labels: colour, description, version and state on the label registry items themselves.

The registry (``lk = <team>``, ``s = <label>``: one item per label the team ever used, see ``model``)
is the catalogue. Issue 21 adds attributes to those same items, so offboarding's ``label_pages``
finds them as before and nothing new is stored per team:

    c   colour, one of ``COLOURS`` (absent: ``DEFAULT_COLOUR``; a CSS class ``label-<c>``, never inline)
    d   description (≤ ``DESCRIPTION_MAX`` characters)
    v   version (absent: 0, an item only ``registry_ensure`` wrote); every save and mark adds 1
    ua  when it was last saved (ISO 8601)
    ls  state: absent = in use; ``renaming`` or ``removing`` while its issues are being moved off it;
        ``gone`` once none is left (``rn`` names the label it became, absent for a deleted one)
    rn  the label it was renamed to
    lt  issues to move (0 until counted: a change too big for the request is counted by its job); ld how many are
        done (the labels page's progress)
    fk  the key of the confirm form that started the rename or delete; by who confirmed it (a confirm sent again
        says "this form, sent before" or names who did it, never "changed since it was read")

A registry item is never deleted but with its team (offboarding relies on it): a deleted label is
marked ``gone``. Every write is an UpdateItem conditioned on the version read (``ChangedSinceRead``
when it moved), so two people editing one label never overwrite each other silently.

Cost (an item ≈ 100 B):
    label_catalogue      Query lk = <team>, eventually consistent: 0.5 RCU per 4 KB (100 labels ≈ 1.5 RCU), 1 request
    label_prefix_page    Query lk = <team>, s BETWEEN prefix AND prefix+U+10FFFF, Limit: 0.5 RCU, 1 request
    label_get            GetItem: 0.5 RCU (1 consistent)
    label_save / _mark   UpdateItem conditioned on v: 1 WCU (a refused one too)
    label_progress       UpdateItem SET ld, conditioned on the state: 1 WCU
    label_issue_count    Query lk = <team>#<label> Select COUNT, consistent: with ``limit`` one request, ≤ 2 RCU
                         (the confirm page and its POST); without (the job only), 1 RCU per 4 KB of entries
                         (≈ 13 issues) in as many requests as 1 MB pages
    label_entries        Query lk = <team>#<label>, Limit 25, consistent: ≤ 2 RCU (the next batch to move)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, NotFound
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import utcnow
from ddbmodels.labels.model import label_key
from ddbmodels.labels.reads import PREFIX_END
from ddbmodels.labels.writes import registry_item

COLOURS = (
    "grey",
    "red",
    "orange",
    "amber",
    "yellow",
    "lime",
    "green",
    "teal",
    "cyan",
    "blue",
    "indigo",
    "purple",
    "pink",
    "maroon",
    "brown",
    "slate",
)
DEFAULT_COLOUR = "grey"
DESCRIPTION_MAX = 200
IN_USE = ""
RENAMING = "renaming"
REMOVING = "removing"
GONE = "gone"
STATES = (IN_USE, RENAMING, REMOVING, GONE)
BUSY = (RENAMING, REMOVING)


@dataclass(frozen=True)
class Label:
    """One label of a team's catalogue, as its registry item stores it."""

    name: str
    colour: str = DEFAULT_COLOUR
    description: str = ""
    version: int = 0
    state: str = IN_USE
    renamed_to: str = ""
    updated_at: str = ""
    total: int = 0  # issues to move when a rename or delete began (0: not counted yet, the job counts)
    done: int = 0  # of them moved so far
    form_key: str = ""  # the key of the confirm form that started the rename or delete
    started_by: str = ""  # who confirmed it

    @property
    def in_use(self) -> bool:
        return self.state == IN_USE

    @property
    def busy(self) -> bool:
        """Its issues are being moved off it (a rename or delete runs): the name is refused meanwhile."""
        return self.state in BUSY


def _table() -> str:
    return connection.table_name("labels")


def label_load(item: dict[str, Any]) -> Label:
    """A registry item (DynamoDB JSON) as a ``Label``."""

    def text(name: str, default: str = "") -> str:
        return str(item[name]["S"]) if name in item else default

    def number(name: str) -> int:
        return int(item[name]["N"]) if name in item else 0

    colour = text("c", DEFAULT_COLOUR)
    return Label(
        name=item["s"]["S"],
        colour=colour if colour in COLOURS else DEFAULT_COLOUR,
        description=text("d"),
        version=number("v"),
        state=text("ls"),
        renamed_to=text("rn"),
        updated_at=text("ua"),
        total=number("lt"),
        done=number("ld"),
        form_key=text("fk"),
        started_by=text("by"),
    )


@capacity.access_pattern("labels.catalogue")
def label_catalogue(tenant: str, *, consistent: bool = False) -> list[Label]:
    """Query lk = the team (its registry), by name — 0.5 RCU per 4 KB eventually consistent, one request for
    ≈ 400 labels: every label the team ever used, gone ones included (``Label.state``)."""
    request: dict[str, Any] = {
        "KeyConditionExpression": "lk = :t",
        "ExpressionAttributeValues": {":t": {"S": tenant}},
        "ConsistentRead": consistent,
    }
    return [label_load(item) for page in query_pages(_table(), **request) for item in page]


@capacity.access_pattern("labels.prefix")
def label_prefix_page(tenant: str, prefix: str, limit: int = 10) -> list[Label]:
    """Query lk = the team, s BETWEEN prefix AND prefix+U+10FFFF, Limit ``limit`` — 0.5 RCU, one request.

    The first ``limit`` labels whose name starts with ``prefix``, by name, whatever their state (the
    caller drops gone or busy ones from these few: autocomplete). An empty prefix: the first names.
    """
    condition = "lk = :t AND s BETWEEN :a AND :b" if prefix else "lk = :t"
    values: dict[str, Any] = {":t": {"S": tenant}}
    if prefix:
        values |= {":a": {"S": prefix}, ":b": {"S": prefix + PREFIX_END}}
    page = connection.client().query(
        TableName=_table(),
        KeyConditionExpression=condition,
        ExpressionAttributeValues=values,
        Limit=max(1, limit),
        ReturnConsumedCapacity="TOTAL",
    )
    return [label_load(item) for item in page.get("Items", [])]


@capacity.access_pattern("labels.get")
def label_get(tenant: str, name: str, *, consistent: bool = True) -> Label | None:
    """GetItem of the label's registry item — 1 RCU consistent (0.5 eventually); None if the team never had it."""
    found = connection.client().get_item(
        TableName=_table(), Key=registry_item(tenant, name), ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL"
    )
    return label_load(found["Item"]) if "Item" in found else None


def _refused(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _update(
    tenant: str,
    name: str,
    *,
    sets: dict[str, dict[str, Any]],
    removes: tuple[str, ...],
    condition: str,
    values: dict[str, Any],
    bump: bool = True,
) -> Label:
    """One UpdateItem of the label's registry item (which must exist); ChangedSinceRead when refused."""
    names = {f"#{attr}": attr for attr in [*sets, *removes]}
    assignments = [f"#{attr} = :{attr}" for attr in sets]
    values = {**values, **{f":{attr}": value for attr, value in sets.items()}}
    if bump:
        names["#v"] = "v"
        assignments.append("#v = if_not_exists(#v, :zero) + :one")
        values |= {":zero": {"N": "0"}, ":one": {"N": "1"}}
    expression = "SET " + ", ".join(assignments)
    if removes:
        expression += " REMOVE " + ", ".join(f"#{attr}" for attr in removes)
    try:
        answer = connection.client().update_item(
            TableName=_table(),
            Key=registry_item(tenant, name),
            UpdateExpression=expression,
            ConditionExpression=f"attribute_exists(lk) AND ({condition})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if _refused(error):
            raise ChangedSinceRead(f"label {name} changed since it was read", current=None) from error
        raise
    return label_load(answer["Attributes"])


def _version_is(expected: int) -> tuple[str, dict[str, Any]]:
    if expected == 0:
        return "(attribute_not_exists(v) OR v = :v)", {":v": {"N": "0"}}
    return "v = :v", {":v": {"N": str(expected)}}


@capacity.access_pattern("labels.save")
def label_save(tenant: str, name: str, *, colour: str, description: str, expected_version: int) -> Label:
    """UpdateItem SET c, d, ua, v+1 on an in-use label of version ``expected_version`` — 1 WCU.

    The registry item must exist (``registry_ensure`` first, as for any label's first use): NotFound
    otherwise. ChangedSinceRead when someone saved it meanwhile, or it is being renamed or deleted.
    """
    if colour not in COLOURS:
        raise InvalidInput(f"no colour {colour!r}", field="colour")
    if len(description) > DESCRIPTION_MAX:
        raise InvalidInput(f"a description has at most {DESCRIPTION_MAX} characters", field="description")
    guard, values = _version_is(expected_version)
    try:
        return _update(
            tenant,
            name,
            sets={
                "c": {"S": colour},
                "ua": {"S": utcnow().isoformat(timespec="seconds")},
                **({"d": {"S": description}} if description else {}),
            },
            removes=() if description else ("d",),
            condition=f"{guard} AND attribute_not_exists(ls)",
            values=values,
        )
    except ChangedSinceRead:
        if label_get(tenant, name) is None:
            raise NotFound(f"label {name} is not registered") from None
        raise


@capacity.access_pattern("labels.mark")
def label_mark(
    tenant: str,
    name: str,
    *,
    state: str,
    expected_version: int,
    renamed_to: str = "",
    total: int = 0,
    form_key: str = "",
    by: str = "",
) -> Label:
    """Move a label to ``state`` (``STATES``) — UpdateItem conditioned on the version read, 1 WCU.

    ``renaming``/``removing`` (from in use): the issues start moving off it, ``total`` of them (0: not counted
    yet), started by ``by`` with the confirm form ``form_key`` (kept when it goes gone); ``gone``
    (from a busy state): none is left, ``renamed_to`` names the label it became (empty: deleted);
    in use again (from a busy state with nothing moved yet, or a gone one being taken up again).
    """
    if state not in STATES:
        raise InvalidInput(f"no label state {state!r}", field="state")
    guard, values = _version_is(expected_version)
    sets: dict[str, dict[str, Any]] = {"ua": {"S": utcnow().isoformat(timespec="seconds")}}
    removes: list[str] = []
    if state:
        sets["ls"] = {"S": state}
    else:
        removes += ["ls", "lt", "ld", "fk", "by"]
    if state in BUSY:
        sets |= {"lt": {"N": str(total)}, "ld": {"N": "0"}}
        for attr, value in (("fk", form_key), ("by", by)):
            if value:
                sets[attr] = {"S": value}
            else:
                removes.append(attr)
        guard += " AND attribute_not_exists(ls)"
    if state in BUSY or state == GONE:
        if renamed_to:
            sets["rn"] = {"S": renamed_to}
        else:
            removes.append("rn")
    else:
        removes.append("rn")
    if state == GONE:
        guard += " AND ls IN (:renaming, :removing)"
        values |= {":renaming": {"S": RENAMING}, ":removing": {"S": REMOVING}}
    return _update(tenant, name, sets=sets, removes=tuple(removes), condition=guard, values=values)


@capacity.access_pattern("labels.progress")
def label_progress(tenant: str, name: str, *, done: int, total: int | None = None) -> None:
    """UpdateItem SET ld = ``done`` (and lt = ``total``, counted by the job) while the label is being renamed or
    deleted — 1 WCU; the version stays (a progress figure is no edit). ChangedSinceRead when it is not busy any
    more."""
    sets = {"ld": {"N": str(done)}} | ({"lt": {"N": str(total)}} if total is not None else {})
    _update(
        tenant,
        name,
        sets=sets,
        removes=(),
        condition="ls IN (:renaming, :removing)",
        values={":renaming": {"S": RENAMING}, ":removing": {"S": REMOVING}},
        bump=False,
    )


@capacity.access_pattern("labels.count")
def label_issue_count(tenant: str, name: str, *, limit: int | None = None) -> int:
    """Query lk = ``<team>#<label>`` Select COUNT, consistent: how many issues carry the label (what a rename or
    delete will move).

    ``limit``: one request, ``Limit`` ``limit`` + 1 — at most ``limit`` + 1, which means "more than ``limit``";
    ≤ 26 entries of ≈ 300 B: ≤ 2 RCU, whatever the label's size (the confirm page, opened again and again, and
    its POST). Without: every page of the partition, 1 RCU per 4 KB of its entries (≈ 13 issues; 20,000 issues
    ≈ 1,500 RCU in 6 requests) — the job of a big rename or delete, once, in the background (its own writes cost
    ≈ 150 times more).
    """
    request: dict[str, Any] = {
        "KeyConditionExpression": "lk = :k",
        "ExpressionAttributeValues": {":k": {"S": label_key(tenant, name)}},
        "Select": "COUNT",
        "ConsistentRead": True,
    }
    if limit is not None:
        request["Limit"] = max(0, limit) + 1
    client = connection.client()
    count = 0
    while True:
        page = client.query(TableName=_table(), ReturnConsumedCapacity="TOTAL", **request)
        count += int(page.get("Count", 0))
        if limit is not None or "LastEvaluatedKey" not in page:
            return count
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@capacity.access_pattern("labels.work")
def label_entries(tenant: str, name: str, *, limit: int = 25, consistent: bool = True) -> list[dict[str, Any]]:
    """Query lk = ``<team>#<label>``, Limit ``limit``, consistent — 1 RCU per 4 KB: the first entries (raw items, each
    an issue's list row and version) of a label whose issues are being moved off it. The partition empties as
    they move, so the next call is the next batch: no cursor to keep, and a rerun resumes where one stopped."""
    page = connection.client().query(
        TableName=_table(),
        KeyConditionExpression="lk = :k",
        ExpressionAttributeValues={":k": {"S": label_key(tenant, name)}},
        Limit=max(1, limit),
        ConsistentRead=consistent,
        ReturnConsumedCapacity="TOTAL",
    )
    return list(page.get("Items", []))
