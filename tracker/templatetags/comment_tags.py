"""The ``comment_id`` filter: a comment's sort key as the id its URLs and anchors use."""

from django import template

from ddbmodels.comments import comment_id as to_comment_id

register = template.Library()


@register.filter
def comment_id(key: str) -> str:
    """``{{ comment.key|comment_id }}`` → ``20261122101530123-9f86d081a1b2``."""
    return to_comment_id(key)
