"""Errors the web layer turns into answers: bad cursors are 400s, not 500s."""

from __future__ import annotations


class BadCursor(Exception):
    """A pagination cursor that was tampered with, expired, or belongs to another listing."""
