"""Path converters: a URL part that cannot be a project key, an issue or order number or an attachment id is a 404.

Registered on import; every URL module that uses them imports this one first.
"""

from __future__ import annotations

from django.urls import register_converter

from ddbmodels.attachments import ATTACHMENT_ID_RE


class ProjectKeyConverter:
    regex = "[A-Z][A-Z0-9]{1,9}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class NumberConverter:
    """1 to 15 digits: anything longer cannot be an issue or order number (DynamoDB caps N at 38 digits).

    Order numbers fit too: their sort-key suffix has 15 digits.
    """

    regex = "[1-9][0-9]{0,14}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))


class AttachmentIdConverter:
    """A ULID: 26 Crockford base32 characters. Anything else is not an attachment (404)."""

    regex = ATTACHMENT_ID_RE.pattern.strip("^$")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ProjectKeyConverter, "pkey")
register_converter(NumberConverter, "num")
register_converter(AttachmentIdConverter, "attid")
