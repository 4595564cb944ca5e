"""Creating and editing issues by API: the issue form's rules, through the services the pages use.

``POST …/issues`` creates exactly once per ``Idempotency-Key`` (``tracker.api.idempotency.run_once``: the key's
record in the issue's own transaction); the answer is the issue as created, and every replay answers those same
bytes, rendered from the request and the issue's parts that never change (whatever was edited since).
``PATCH …/issues/{number}`` changes the fields it names (``services.issues.issue_update``) and moves the status
(``issue_change_status``), each checked before anything is written (a move the workflow does not allow: 409, nothing
changed). ``If-Match`` with the issue's ETag makes it conditional: a stale one is a 412 with the issue as it is now.
Labels, assignees and milestones follow the form's rules: new labels lower-cased, kept ones as spelt, none that is
being renamed or deleted; an assignee who is a member or owner now; a milestone by its name, open when written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse
from ninja import Header, Path
from ninja.errors import ValidationError
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition
from tracker.api.access import require_scope, require_token_scope, team_access
from tracker.api.etag import etag_of, matches, precondition_failed
from tracker.api.idempotency import key_header, run_once
from tracker.api.issue_out import IssueOut, Priority, Status, issue_out
from tracker.api.openapi import cost
from tracker.api.routers.issue_reads import router  # ninja answers a path from one router: the issues' (D's)
from tracker.api.schemas import Problem, as_sent
from tracker.issue_terms import LABEL_RE, label_refusals
from tracker.selectors.board import moves
from tracker.selectors.issues import project_issue_access
from tracker.selectors.labels import label_catalogue
from tracker.selectors.milestones import milestone_by_name, milestone_names
from tracker.selectors.projects import project_access
from tracker.services import issues as issue_services
from tracker.services import replays

if TYPE_CHECKING:
    from ddbmodels.issues import IssueItem, ProjectItem
    from ddbmodels.patterns.sequences import Claimed
    from tracker.models import Membership


# ddbmodels.issues' limits, spelt out for the schema (tests/tracker/api/test_issue_writes.py fails if they part)
TITLE_MAX = 200
DESCRIPTION_MAX = 10_000
LABELS_MAX = 10
LABEL_MAX = 30
NUMBER_MAX = 10**15 - 1  # the pages' number converter: 1 to 15 digits
LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")  # ddbmodels.issues.one_line's: one line a title
ISSUES = "/teams/{team}/projects/{key}/issues"
Number = Path(..., ge=1, le=NUMBER_MAX, description="The issue's number in the project.")


def clean_title(title: str) -> str:
    """The title as the form cleans it (each run of line breaks one space, blanks around stripped); ValueError."""
    cleaned = LINE_BREAKS.sub(" ", title).strip()
    if not cleaned:
        raise ValueError("A title is required.")
    if len(cleaned) > TITLE_MAX:
        raise ValueError(f"At most {TITLE_MAX} characters.")
    return cleaned


def _label(label: str) -> str:
    label = label.strip()
    if not label or len(label) > LABEL_MAX or not LABEL_RE.match(label):
        raise ValueError(f"Label “{label}”: up to {LABEL_MAX} letters, digits, dots, dashes or underscores.")
    return label


class IssueIn(BaseModel):
    """A new issue: the issue form's fields."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=TITLE_MAX + 100, description=f"One line, at most {TITLE_MAX}.")
    description: str = Field("", max_length=DESCRIPTION_MAX + 1000, description="Markdown.")
    priority: Priority = "medium"
    assignee: str | None = Field(None, max_length=150, description="A member's or owner's username.")
    labels: list[str] = Field(
        default_factory=list, max_length=LABELS_MAX, description="Label names; new ones are lower-cased."
    )
    milestone: str | None = Field(None, max_length=200, description="The name of an open milestone of the project.")

    @field_validator("title")
    @classmethod
    def _title(cls, title: str) -> str:
        return clean_title(title)

    @field_validator("description")
    @classmethod
    def _description(cls, description: str) -> str:
        if len(description.strip()) > DESCRIPTION_MAX:
            raise ValueError(f"At most {DESCRIPTION_MAX} characters.")
        return description.strip()

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        return sorted({_label(label).lower() for label in labels})


class IssuePatch(BaseModel):
    """What to change; a field left out stays as it is. ``null`` clears the assignee or the milestone."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = Field(None, min_length=1, max_length=TITLE_MAX + 100)
    description: str | None = Field(None, max_length=DESCRIPTION_MAX + 1000)
    priority: Priority | None = None
    assignee: str | None = Field(None, max_length=150, description="A username; null to unassign.")
    labels: list[str] | None = Field(None, max_length=LABELS_MAX * 2, description="The issue's labels, all of them.")
    milestone: str | None = Field(None, max_length=200, description="An open milestone's name; null for none.")
    status: Status | None = Field(None, description="Where to move it (the workflow's moves; 409 otherwise).")

    @model_validator(mode="after")
    def _not_null(self) -> IssuePatch:
        for name in ("title", "description", "priority", "labels", "status"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        if self.title is not None:
            self.title = clean_title(self.title)
        if self.description is not None:
            if len(self.description.strip()) > DESCRIPTION_MAX:
                raise ValueError(f"description: at most {DESCRIPTION_MAX} characters.")
            self.description = self.description.strip()
        if self.labels is not None:
            self.labels = sorted({_label(label) for label in self.labels})
        return self


def _invalid(field: str, message: str) -> ValidationError:
    """A 422 naming one field of the body, as the schema's own validation would."""
    return ValidationError([{"loc": ("body", "payload", field), "msg": message, "type": "value_error"}])


def _check_new_labels(membership: Membership, new: list[str]) -> None:
    """The form's refusal of labels being renamed or deleted, or gone (the cached catalogue: Redis, else one Query)."""
    if not new:
        return
    refused = label_refusals(label_catalogue(tenant=membership.tenant))
    for label in new:
        if label in refused:
            raise _invalid("labels", refused[label])


def _milestone_id(project: ProjectItem, name: str | None) -> tuple[str | None, str | None]:
    """(id, name) of the project's milestone called ``name`` (the cached list); 422 for none of that name."""
    if not name or not name.strip():
        return None, None
    found = milestone_by_name(tenant=project.tenant, project_key=project.project_key, name=name)
    if found is None:
        raise _invalid("milestone", f"No milestone “{name.strip()}” in {project.project_key}.")
    return found.milestone_id, found.name


def first_issue(
    claimed: Claimed[IssueItem], payload: IssueIn, milestone: tuple[str | None, str | None]
) -> dict[str, Any]:
    """The answer of the POST that created the issue, and of every replay of it byte for byte: the fields as the
    request gave them (stored as the service stores them) and the issue's parts that never change, as it was created
    (open, version 1), whatever happened to it since. The same bytes as a GET of it then."""
    created = issue_out(claimed.item)
    milestone_id, milestone_name = milestone
    whole = {
        **created,
        "title": payload.title,
        "status": "open",
        "priority": payload.priority,
        "assignee": payload.assignee or None,
        "labels": sorted(payload.labels),
        "updated_at": created["created_at"],
        "version": 1,
        "description": payload.description,
        "milestone": {"id": milestone_id, "name": milestone_name} if milestone_id else None,
        "imported_from": None,
    }
    return as_sent(IssueOut.model_validate(whole))  # as a GET of it renders it


@dataclass(frozen=True)
class Made:
    """The issue a create made (or its key had made meanwhile: ``replayed``) and its milestone then (id, name)."""

    claimed: Claimed[IssueItem]
    milestone: tuple[str | None, str | None]

    @property
    def replayed(self) -> bool:
        return self.claimed.replayed


@router.post(
    ISSUES,
    response={201: IssueOut, 409: Problem},
    summary="Create an issue",
    openapi_extra=cost(
        requests="6–8: the key's record first (+1 with a project not cached); a replay 2 (the key's record and the "
        "issue) + its recording again",
        rcu="1 (the key's record, consistent) + 1 (the project, consistent) + 1 (the largest number, consistent) "
        "[+ 0.5 the project; label catalogue and milestones from Redis, else ≈ 0.5–1.5 each]; a replay 2 (the key's "
        "record and the issue, consistent)",
        wcu="≈ 2 per KB of the issue + 2 per list-index entry + 3 (the key's record and its index entry) + 2 per "
        "label + 2 (a milestone's check), in one transaction; + ≈ 2 (its change event); a replay only its recording "
        "again, which doubles nothing (the event's put refused: ≈ 1)",
        note="Exactly once per Idempotency-Key: the key's record is read first (a replay answers the first answer, "
        "whatever changed since: no check runs again), and written in the issue's own transaction.",
    ),
)
def issue_create(
    request: HttpRequest,
    team: str,
    key: str,
    payload: IssueIn,
    idempotency_key: str | None = key_header(),
) -> HttpResponse:
    """Create an issue in the project (members and owners: a `write` token). The answer is the issue (201), its URL
    (`Location`) and its `ETag`; the same `Idempotency-Key` again answers the same bytes and creates nothing
    (`Idempotent-Replayed: true`); with another body, 422 `idempotency_key_reused`. 409: the same key's first request
    is still running (`idempotency_key_in_flight`, `Retry-After`), or the milestone is closed or closing."""
    membership = team_access(request, team)
    require_token_scope(request, "write")
    project = project_access(tenant=membership.tenant, key=key)

    def replay(scoped: str, fingerprint: str) -> Made | None:
        found = replays.issue_replay(
            membership=membership, project_key=key, idempotency_key=scoped, fingerprint=fingerprint, title=payload.title
        )
        if found is None:
            return None
        if not found.milestone:
            return Made(found.claimed, (None, None))
        # The first answer named the milestone as it was then, which matched this same request's name (the same
        # fingerprint) case-insensitively: its name now when that still matches, else the name the request gave.
        now = milestone_names(tenant=project.tenant, project_key=project.project_key).get(found.milestone)
        asked = (payload.milestone or "").strip()
        return Made(found.claimed, (found.milestone, now if now and now.casefold() == asked.casefold() else asked))

    def create(scoped: str, fingerprint: str) -> Made:
        require_scope(request, "write")  # the role as it is now: a new create's check, not a replay's
        if payload.assignee and not issue_services.assignable(membership, payload.assignee):
            raise _invalid("assignee", f"“{payload.assignee}” is not a member or owner of the team.")
        _check_new_labels(membership, payload.labels)
        milestone = _milestone_id(project, payload.milestone)
        claimed = issue_services.issue_create_claim(
            membership=membership,
            project=project,
            title=payload.title,
            description=payload.description,
            priority=payload.priority,
            assignee=payload.assignee or None,
            labels=payload.labels,
            milestone=milestone[0],
            idempotency_key=scoped,
            fingerprint=fingerprint,
        )
        return Made(claimed, milestone)

    def first_answer(made: Made) -> dict[str, Any]:
        return first_issue(made.claimed, payload, made.milestone)

    answer = run_once(
        request,
        membership=membership,
        kind=f"issue#{key}",
        replay=replay,
        create=create,
        first_answer=first_answer,
    )
    if answer.status_code == 201:
        answer["ETag"] = '"1"'  # as created: the replay's too
        number = json.loads(answer.content)["number"]
        answer["Location"] = request.build_absolute_uri(f"{request.path.rstrip('/')}/{number}")
    return answer


def _labels_after(issue: IssueItem, given: list[str]) -> tuple[list[str], list[str]]:
    """The form's rule: labels the issue has keep their spelling; new ones are lower-cased. (all, new)."""
    kept = {label.lower(): label for label in issue.labels or ()}
    labels = sorted({kept.get(label.lower(), label.lower()) for label in given})
    return labels, sorted(set(labels) - set(kept.values()))


@router.patch(
    f"{ISSUES}/{{number}}",
    response={200: IssueOut, 409: Problem, 412: Problem},
    summary="Change an issue",
    openapi_extra=cost(
        requests="2–6 (+1 with a project not cached)",
        rcu="1 (the issue, consistent) [+ 0.5 the project; milestones and labels from Redis]",
        wcu="fields: 1 per KB of the issue + 2 per list index it moves in + 2 per label changed + ≈ 2 (its "
        "event); status: the same again (a second UpdateItem and event); a move into a milestone: 2 per KB + 2 "
        "(its check, in a transaction)",
        note="A stale If-Match answers 412 after the read alone: nothing written.",
    ),
)
def issue_patch(
    request: HttpRequest,
    team: str,
    key: str,
    payload: IssuePatch,
    response: HttpResponse,
    number: int = Number,
    if_match: str | None = Header(
        None,
        alias="If-Match",
        max_length=200,
        description='The issue\'s ETag (`"<version>"`): change only that version.',
    ),
) -> Any:
    """Change the fields given and move the status (members and owners: a `write` token). With `If-Match` (the
    issue's `ETag`) it applies only to that version: otherwise 412 with the issue as it is now (`current`). A status
    the workflow does not allow from where it is, or a milestone closed or closing: 409, nothing changed."""
    membership = team_access(request, team)
    require_scope(request, "write")
    project, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number, consistent=True)
    names = milestone_names(tenant=project.tenant, project_key=project.project_key)
    if not matches(request, etag_of(issue)):
        return precondition_failed(etag_of(issue), issue_out(issue, names))
    given = payload.model_fields_set
    to = payload.status if payload.status is not None and payload.status != issue.status else None
    if to is not None and to not in moves(issue.status):
        raise InvalidTransition(f"An issue that is {issue.status} cannot become {to}.", current=issue.status, to=to)
    fields = issue_services.edit_values_of(issue)
    changes: dict[str, Any] = {
        name: getattr(payload, name) for name in ("title", "description", "priority") if name in given
    }
    if "assignee" in given:
        changes["assignee"] = payload.assignee or None
    if payload.labels is not None:
        labels, new = _labels_after(issue, payload.labels)
        if new and len(labels) > LABELS_MAX:
            raise _invalid("labels", f"At most {LABELS_MAX} labels.")
        _check_new_labels(membership, new)
        changes["labels"] = labels
    milestone: dict[str, Any] = {}
    if "milestone" in given:
        milestone["milestone"] = _milestone_id(project, payload.milestone)[0]
    try:
        if changes or milestone:
            issue = issue_services.issue_update(
                membership=membership,
                issue=issue,
                expected_version=int(issue.version or 0),
                **{**fields, **changes},
                **milestone,
            )
        if to is not None:
            issue = issue_services.issue_change_status(
                membership=membership, project=project, issue=issue, expected_version=int(issue.version or 0), to=to
            )
    except ChangedSinceRead:
        if request.headers.get("If-Match") is None:
            raise  # no precondition was asked for: a race with another writer, 409
        _, now = project_issue_access(tenant=membership.tenant, project_key=key, number=number, consistent=True)
        return precondition_failed(etag_of(now), issue_out(now, names))
    response["ETag"] = etag_of(issue)
    return issue_out(issue, names)
