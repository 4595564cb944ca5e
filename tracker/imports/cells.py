"""Spreadsheet-safe CSV cells (OWASP "CSV injection"): a cell a spreadsheet would run as a formula is written
with a leading ``'``, which spreadsheets show as text; the importers take that ``'`` off again.

A cell is a formula to a spreadsheet when it starts with ``=``, ``+``, ``-`` or ``@``, or with a tab or
a carriage return (which some spreadsheets skip before looking for one). ``'`` followed by one of those
is read back as the cell without its ``'``; so that a cell that really starts that way survives, such a
cell is written with one more ``'`` (``'=x`` → ``''=x`` → ``'=x``).
"""

from __future__ import annotations

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escaped(text: str) -> bool:
    """Whether ``text`` is ``'``s then a formula start (what ``safe_cell`` writes)."""
    rest = text.lstrip("'")
    return rest != text and rest[:1] in FORMULA_START


def safe_cell(text: str) -> str:
    """The cell as written to a CSV export: a leading ``'`` when a spreadsheet would run it."""
    if text[:1] in FORMULA_START or _escaped(text):
        return "'" + text
    return text


def read_cell(text: str) -> str:
    """A cell of a CSV import: ``safe_cell``'s ``'`` taken off (other cells as they are)."""
    return text[1:] if _escaped(text) else text
