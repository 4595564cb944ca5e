"""Finish or roll back attachments stuck between DynamoDB and storage (beat: every 15 minutes)."""

from __future__ import annotations

from typing import Any

from tracker.management.jobcommand import JobCommand
from tracker.services import attachments


class Command(JobCommand):
    help = (
        "Query the sparse in_flight index for attachments stuck in Attaching or Detaching and complete "
        "or roll back each one from what storage holds."
    )
    job_name = "reconcile_attachments"

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--older-than",
            type=int,
            default=None,
            metavar="SECONDS",
            help="stuck means in the state longer than this (default: ATTACHMENT_STUCK_SECONDS)",
        )
        parser.add_argument("--limit", type=int, default=None, help="repair at most this many (oldest first)")

    def work(self, options: dict[str, Any]) -> Any:
        return lambda run: attachments.reconcile_attachments_job(
            run, older_than_seconds=options["older_than"], limit=options["limit"]
        )
