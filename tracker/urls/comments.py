"""URLs of the comment pages (included by tracker/urls under /t/<tenant>/p/<project>/<number>/comments/)."""

from django.urls import URLPattern, path, register_converter

import tracker.urls.converters  # noqa: F401  (pkey, num)
from ddbmodels.comments import COMMENT_ID_RE
from tracker.views import comments


class CommentIdConverter:
    """A comment's id in a URL: its sort key without punctuation (``20261122101530123-9f86d081a1b2``)."""

    regex = COMMENT_ID_RE.pattern.replace("?P<digits>", "").replace("?P<suffix>", "")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CommentIdConverter, "commentid")

urlpatterns: list[URLPattern] = [
    path("", comments.comment_add, name="comment_add"),
    path("<commentid:comment>/edit/", comments.comment_edit, name="comment_edit"),
    path("<commentid:comment>/delete/", comments.comment_delete, name="comment_delete"),
]
