"""Errors of the web layer itself; ``tracker.error_pages`` answers them with a 400, never a 500."""

from __future__ import annotations


class BadRequest(Exception):
    """A request the page cannot act on (an unknown filter, a job that does not exist); the message says why."""


class BadCursor(BadRequest):
    """A pagination cursor that was tampered with, expired, or belongs to another listing."""
