"""The terms table: label and title-word entries of issues, read by key. See ``model`` for keys and costs."""

from ddbmodels.terms.model import (
    LABEL,
    STOP_WORDS,
    WORD,
    WORDS_MAX,
    IssueRow,
    TermEntry,
    entries_for,
    issue_of,
    label_prefix,
    label_sort,
    query_words,
    title_words,
    word_prefix,
    word_sort,
)
from ddbmodels.terms.reads import entry_page

__all__ = [
    "LABEL",
    "STOP_WORDS",
    "WORD",
    "WORDS_MAX",
    "IssueRow",
    "TermEntry",
    "entries_for",
    "entry_page",
    "issue_of",
    "label_prefix",
    "label_sort",
    "query_words",
    "title_words",
    "word_prefix",
    "word_sort",
]
