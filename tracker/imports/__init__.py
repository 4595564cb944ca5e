"""Issues moving in and out: parsers of GitHub, Jira and plain-CSV exports, the bulk load, the writers back.

Every format becomes the same neutral ``Record`` (``records``); ``load`` turns records into
BatchWriteItem requests interleaved across the projects, under a WCU budget, checkpointed;
``export`` writes a project back out in any of the formats, page by page.
"""

from tracker.imports.records import FORMATS, Note, Record, parse

__all__ = ["FORMATS", "Note", "Record", "parse"]
