"""An issue's words as a team reads them: status and priority names, and what a label may be.

Shared by forms, selectors, services (notification wording), template tags and error pages, so
none of them imports another layer for a word.
"""

from __future__ import annotations

import re

STATUS_LABELS = {"open": "Open", "in_progress": "In progress", "resolved": "Resolved", "closed": "Closed"}
PRIORITY_LABELS = {"low": "Low", "medium": "Medium", "high": "High", "urgent": "Urgent"}
LABEL_RE = re.compile(r"^[\w.-]+$")
