"""What a notification says, in a team's words: "alice moved WEB-3 “Title” from Open to Closed"."""

from __future__ import annotations

from typing import Any

from ddbmodels.events import Kind
from tracker.issue_terms import PRIORITY_LABELS, STATUS_LABELS

EXCERPT_MAX = 80  # characters of a comment or description a notification quotes


def note_text(
    *, kind: str, actor: str, data: dict[str, Any], reference: str, title: str, recipient: str, assignee: str = ""
) -> str:
    """What the notification says, in plain words, to ``recipient``."""
    about = f"{reference} “{title}”" if title else reference
    mentions = data.get("mentions") or []
    excerpt = _excerpt(data.get("excerpt"))
    if kind == Kind.ISSUE_CREATED:
        if assignee == recipient:
            return f"{actor} opened {about} and assigned it to you"
        return f"{actor} opened {about}"
    if kind == Kind.ISSUE_EDITED:
        return _edited_text(actor=actor, data=data, about=about, recipient=recipient)
    if kind == Kind.ISSUE_STATUS:
        before = STATUS_LABELS.get(data.get("from", ""), data.get("from", ""))
        after = STATUS_LABELS.get(data.get("to", ""), data.get("to", ""))
        return f"{actor} moved {about} from {before} to {after}"
    if kind == Kind.ISSUE_DELETED:
        return f"{actor} deleted {reference}"
    if kind in (Kind.COMMENT_ADDED, Kind.COMMENT_EDITED):
        verb = "mentioned you on" if recipient in mentions else "commented on"
        return f"{actor} {verb} {reference}: {excerpt}" if excerpt else f"{actor} {verb} {reference}"
    if kind == Kind.ATTACHMENT_ADDED:
        return f"{actor} attached {data.get('filename', 'a file')} to {reference}"
    return f"{actor} changed {reference}"


def _excerpt(value: object) -> str:
    """One line of at most ``EXCERPT_MAX`` characters (an ellipsis when cut)."""
    text = " ".join(str(value or "").split())
    return text if len(text) <= EXCERPT_MAX else text[: EXCERPT_MAX - 1] + "…"


def _edited_clauses(data: dict[str, Any], recipient: str, about: str) -> list[tuple[str, str]]:
    """What an edit changed: per change, its clause naming the issue (said first) and the one after another."""
    changed = data.get("changed") or {}
    clauses: list[tuple[str, str]] = []

    def who(name: str) -> str:
        return "you" if name == recipient else name

    if "assignee" in changed:
        before, after = changed["assignee"]
        if not before:
            clauses.append((f"assigned {about} to {who(after)}", f"assigned it to {who(after)}"))
        elif not after:
            clauses.append((f"unassigned {who(before)} from {about}", f"unassigned {who(before)}"))
        else:
            clauses.append((f"reassigned {about} from {who(before)} to {who(after)}", f"reassigned it to {who(after)}"))
    if "title" in changed:
        title = changed["title"][1]
        clauses.append((f"renamed {about.split(' ', 1)[0]} to “{title}”", f"renamed it to “{title}”"))
    if "priority" in changed:
        before, after = (PRIORITY_LABELS.get(value, value) for value in changed["priority"])
        clauses.append(
            (f"changed the priority of {about} from {before} to {after}", f"changed its priority to {after}")
        )
    if "milestone" in changed:  # names, as the history records them
        before, after = changed["milestone"]
        if not before:
            clauses.append((f"put {about} in milestone {after}", f"put it in milestone {after}"))
        elif not after:
            clauses.append((f"took {about} out of milestone {before}", f"took it out of milestone {before}"))
        else:
            moved = f"from milestone {before} to {after}"
            clauses.append((f"moved {about} {moved}", f"moved it {moved}"))
    labels = data.get("labels") or {}
    for verb, preposition in (("added", "to"), ("removed", "from")):
        names = list(labels.get(verb) or [])
        if names:
            said = f"{verb} {'labels' if len(names) > 1 else 'label'} {', '.join(names)}"
            clauses.append((f"{said} {preposition} {about}", said))
    if data.get("description"):
        excerpt = "" if data.get("diff_removed_by") else _excerpt(data.get("excerpt"))  # unquoted: see _edited_text
        if "excerpt" in data and not excerpt and not data.get("diff_removed_by"):
            clauses.append((f"removed the description of {about}", "removed its description"))
        else:
            quoted = f": “{excerpt}”" if excerpt else ""
            clauses.append((f"edited the description of {about}{quoted}", f"edited its description{quoted}"))
    return clauses


def _edited_text(*, actor: str, data: dict[str, Any], about: str, recipient: str) -> str:
    """An edit in a team's words: "alice edited the description of WEB-12 “Title”: “the new text…”".

    The first change names the issue, the others follow ("alice changed the priority of WEB-12
    “Title” from Low to High and edited its description: “…”"); an edit that changed nothing a
    notification tells of is "alice saved WEB-12 “Title”". A description edit whose change its editor or an
    owner removed from the history (``diff_removed_by``: ``services.history_removal.description_diff_forget``) quotes
    none of its words and says who removed it.
    """
    clauses = _edited_clauses(data, recipient, about)
    if not clauses:
        return f"{actor} saved {about}"
    parts = [clauses[0][0], *(later for _, later in clauses[1:])]
    said = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    if data.get("description") and data.get("diff_removed_by"):
        return f"{actor} {said} (the change was removed from the history by {data['diff_removed_by']})"
    return f"{actor} {said}"
