"""The attachments table: one item collection per issue, one item per file, and the sparse
``in_flight`` index of the attachments caught between DynamoDB and file storage.

    PK  pk = "<tenant>#<PROJECT>#<number>"   the issue (the tenant is in every key)
    SK  id = a ULID: 48-bit milliseconds + 80 random bits, 26 Crockford base32 characters —
             sorts by time, and cannot be guessed
        st state, fn file name as shown, sn storage name, sz bytes, sh SHA-256 (hex),
        ct content type, by who attached it, db who detached it, rs why it failed
    GSI in_flight  PK gp = "<state>#<n>", SK gs = when it entered the state; projection ALL.
        gp and gs exist only while the state is Attaching or Detaching (patterns.sparse_index).

States: Attaching → Attached → Detaching → Detached, and Attaching → Failed. The item is written
*before* the file and leaves Attaching only once the file is stored and verified, so storage
never holds a file no item accounts for; Detaching likewise outlives the file. Failed is the
rolled-back end of an attach that never completed: it must leave the in-flight index (or the
repair job would retry it forever), and it is not Detached — nobody ever saw it attached, nobody
detached it — so it keeps why it failed (``rs``) for whoever looks into it.

Why the state in the index key and write-sharded (N = 4): the repair job treats the two states
differently and reads each with its own Queries; and every attach or detach writes the index
twice (entry in, entry out), so a burst of uploads across all tenants would make one constant
key the hot partition the seed warns about. N is fixed: fewer shards on read would miss items.

Projection ALL: the repair job needs the storage name, size and digest of each entry, and an
entry of a ≤ 1 KB item costs 1 WCU whatever is projected.

Cost: every transition is a conditional UpdateItem on the state it leaves; attach or detach is
4 WCU, half of it the index (an entry in, an entry out). Finding stuck attachments is one Query
per state and shard: 4 RCU for 50 stuck among 5,000, where a Scan would read all 5,000. ``flow``
moves the file (verified by size and SHA-256) and ``flow.reconcile`` repairs what a crash left in
between (``manage.py reconcile_attachments``).
"""

from __future__ import annotations

import os
import re
import secrets
import unicodedata

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.errors import InvalidInput
from ddbmodels.core.keys import issue_stream, utcnow
from ddbmodels.patterns.sparse_index import SparseIndex

ATTACHING, ATTACHED, DETACHING, DETACHED, FAILED = "Attaching", "Attached", "Detaching", "Detached", "Failed"
STATES = (ATTACHING, ATTACHED, DETACHING, DETACHED, FAILED)
INTERMEDIATE = (ATTACHING, DETACHING)
VISIBLE = (ATTACHING, ATTACHED, DETACHING)  # what an issue page lists
IN_FLIGHT_SHARDS = 4
FILENAME_MAX = 150  # characters of a shown file name; longer names keep their extension
EXTENSION_MAX = 16
STORAGE_NAME_MAX = 80
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ATTACHMENT_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


class BadFilename(InvalidInput, code="bad_filename"):
    """The file name cannot be used."""


def issue_key(tenant: str, project_key: str, number: int) -> str:
    """Partition key of an issue's attachments: the issue's stream (``keys.issue_stream``)."""
    return issue_stream(tenant, project_key, number)


def new_attachment_id(now_ms: int | None = None) -> str:
    """A ULID: time-sortable (milliseconds first), 80 random bits, 26 characters."""
    ms = int(utcnow().timestamp() * 1000) if now_ms is None else now_ms
    value = (ms << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def clean_filename(raw: str) -> str:
    """The name to show: separators refused, control characters dropped, length limited.

    Raises BadFilename for a name with "/" or "\\" (a path, not a name) or with nothing left.
    """
    name = unicodedata.normalize("NFC", raw)
    if "/" in name or "\\" in name:
        raise BadFilename("A file name cannot contain “/” or “\\”: give the name of the file only, not a path.")
    # Control, format (bidi overrides), private-use and unassigned characters; line separators.
    name = "".join(c for c in name if unicodedata.category(c)[0] != "C" and unicodedata.category(c) not in {"Zl", "Zp"})
    name = " ".join(name.split())
    if name in {"", ".", ".."}:
        raise BadFilename("The file needs a name.")
    if len(name) > FILENAME_MAX:
        stem, ext = os.path.splitext(name)
        ext = ext if len(ext) <= EXTENSION_MAX else ""
        name = stem[: FILENAME_MAX - len(ext)].rstrip() + ext
    return name


def storage_safe(name: str) -> str:
    """An ASCII rendering of a clean file name for storage keys (letters, digits, ``._-``)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    safe = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9._-]", "_", ascii_name)).lstrip("._")
    if len(safe) > STORAGE_NAME_MAX:
        stem, ext = os.path.splitext(safe)
        ext = ext if len(ext) <= EXTENSION_MAX else ""
        safe = stem[: STORAGE_NAME_MAX - len(ext)] + ext
    return safe or "file"


def storage_name(tenant: str, project_key: str, number: int, attachment_id: str, filename: str) -> str:
    """attachments/<tenant>/<PROJECT>/<number>/<id>/<safe name>: tenant-scoped, unguessable (the id)."""
    return f"{team_folder(tenant)}/{project_key}/{int(number)}/{attachment_id}/{storage_safe(filename)}"


def team_folder(tenant: str) -> str:
    """attachments/<tenant>: the folder of every file of the team (offboarding deletes all of it, orphans too)."""
    return f"attachments/{tenant}"


class InFlightIndex(GlobalSecondaryIndex["AttachmentItem"]):
    """Sparse: only attachments in Attaching or Detaching, by state and shard, oldest first."""

    class Meta:
        index_name = "in_flight"
        projection = AllProjection()

    in_flight_key = UnicodeAttribute(hash_key=True, attr_name="gp")
    in_flight_since = UTCDateTimeAttribute(range_key=True, attr_name="gs")


@register("attachments")
class AttachmentItem(Model):
    """One file attached to an issue, and where it is between DynamoDB and storage."""

    class Meta:
        table_name = "attachments"  # the base name: register() prefixes it

    pk = UnicodeAttribute(hash_key=True, attr_name="pk")
    attachment_id = UnicodeAttribute(range_key=True, attr_name="id")
    state = UnicodeAttribute(attr_name="st")
    filename = UnicodeAttribute(attr_name="fn")
    storage_name = UnicodeAttribute(attr_name="sn")
    size = NumberAttribute(attr_name="sz")
    sha256 = UnicodeAttribute(attr_name="sh")
    content_type = UnicodeAttribute(attr_name="ct")
    attached_by = UnicodeAttribute(attr_name="by")
    detached_by = UnicodeAttribute(attr_name="db", null=True)
    reason = UnicodeAttribute(attr_name="rs", null=True)
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    updated_at = UTCDateTimeAttribute(attr_name="ua", default=utcnow)
    # Sparse index keys: set while Attaching or Detaching, removed by the update that leaves it.
    in_flight_key = UnicodeAttribute(attr_name="gp", null=True)
    in_flight_since = UTCDateTimeAttribute(attr_name="gs", null=True)

    in_flight = InFlightIndex()

    @property
    def issue_number(self) -> int:
        return int(self.pk.rsplit("#", 1)[1])

    @property
    def is_intermediate(self) -> bool:
        return self.state in INTERMEDIATE


IN_FLIGHT: SparseIndex[AttachmentItem] = SparseIndex(
    model=AttachmentItem,
    index=AttachmentItem.in_flight,
    partition="in_flight_key",
    since="in_flight_since",
    shards=IN_FLIGHT_SHARDS,
    shard_key=lambda item: str(item.attachment_id),
)
