"""What the text boxes' helpers read: suggestions as one types (people, labels) and a markdown preview.

Costs:

    people   → one SQL query of the team's memberships (Django's database, not DynamoDB):
               ``user__username__istartswith`` the prefix, ordered by username, at most ``SUGGESTIONS``
    labels   → ``ddbmodels.labels.label_prefix_page``: one Query of the team's label registry
               (sort key BETWEEN prefix AND prefix+U+10FFFF, Limit 15 of ≈ 100 B items: 0.5 RCU);
               labels gone or being renamed/deleted are dropped from those few (bounded: at
               most ``LABELS_READ``), so up to 10 remain unless many such share the prefix
    preview  → nothing read but the team's usernames (one SQL query, as the issue page does for
               its @mentions); the markdown is rendered and sanitised in this process

A preview is what the issue page will show: ``tracker.markdown.render`` with the team's
mentions (``selectors.comments.team_mentions``: every member, viewers included).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import SafeString, mark_safe

from ddbmodels import labels as ddb_labels
from ddbmodels.comments import BODY_MAX
from ddbmodels.issues import DESCRIPTION_MAX
from tracker.markdown import render
from tracker.models import Membership, Role, Tenant
from tracker.selectors.comments import team_mentions

SUGGESTIONS = 10  # at most this many suggestions an answer
LABELS_READ = SUGGESTIONS + 5  # a few more than shown, for the gone or busy ones dropped (still one 0.5 RCU page)
PREFIX_MAX = 150  # a username's longest (Django's User.username); a longer prefix finds nobody
NOTHING_TO_PREVIEW = "Nothing to preview."
PREVIEW_MAX = max(DESCRIPTION_MAX, BODY_MAX)  # the longest text a page's box takes (10,000 characters)


@dataclass(frozen=True)
class Suggestion:
    """One suggestion: ``value`` is what is inserted, ``label`` what the list shows, ``colour`` a label's."""

    value: str
    label: str
    colour: str | None = None

    def as_json(self) -> dict[str, str | None]:
        return {"value": self.value, "label": self.label, "colour": self.colour}


def member_suggestions(*, tenant: Tenant, prefix: str, assignable: bool = False) -> list[Suggestion]:
    """The team's people whose username starts with ``prefix`` (any case), by username, ≤ ``SUGGESTIONS``.

    One SQL query. ``assignable``: only those who may be assigned an issue (owners and members; a
    viewer cannot be). A viewer is shown as "carol (viewer)" otherwise: still mentionable.
    """
    people = Membership.objects.filter(tenant=tenant, user__username__istartswith=prefix)
    if assignable:
        people = people.exclude(role=Role.VIEWER)
    rows = people.order_by("user__username").values_list("user__username", "role")[:SUGGESTIONS]
    return [Suggestion(value=name, label=f"{name} (viewer)" if role == Role.VIEWER else name) for name, role in rows]


@dataclass(frozen=True)
class Preview:
    """A text as its page will show it (``html``), or why it cannot be shown (``error``); not saved."""

    html: SafeString
    error: str | None = None


def text_preview(*, tenant: Tenant, text: str) -> Preview:
    """The preview a form's "Preview" button shows under the form (the same HTML ``markdown_preview`` gives)."""
    error = preview_error(text)
    if error:
        return Preview(html=mark_safe(""), error=error)
    return Preview(html=markdown_preview(tenant=tenant, text=text))


def label_suggestions(*, tenant: Tenant, prefix: str) -> list[Suggestion]:
    """The team's labels in use whose name starts with ``prefix`` (labels are lower case), by name, ≤ 10.

    One Query of the registry (see the module's costs); ``label`` adds the label's description.
    """
    found = ddb_labels.label_prefix_page(tenant.slug, prefix.strip().lower(), limit=LABELS_READ)
    return [
        Suggestion(
            value=label.name,
            label=f"{label.name} — {label.description}" if label.description else label.name,
            colour=label.colour,
        )
        for label in found
        if label.in_use
    ][:SUGGESTIONS]


def preview_error(text: str) -> str | None:
    """Why ``text`` cannot be previewed (longer than any box takes), or None."""
    length = len(_lines(text))
    if length > PREVIEW_MAX:
        return f"Too long to preview: a text holds at most {PREVIEW_MAX:,} characters; this one has {length:,}."
    return None


def markdown_preview(*, tenant: Tenant, text: str) -> SafeString:
    """``text`` as the issue page will show it: rendered, sanitised, the team's @mentions linked."""
    return render(_lines(text), team_mentions(tenant=tenant))


def _lines(text: str) -> str:
    """Line ends as the stored text has them (a browser sends ``\\r\\n``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
