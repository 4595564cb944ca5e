"""The ``markdown`` filter: markdown as sanitised HTML, members' @mentions linked (``tracker.markdown``)."""

from django import template
from django.utils.safestring import SafeString

from tracker.markdown import Mentions, render

register = template.Library()


@register.filter
def markdown(text: str | None, mentions: Mentions | None = None) -> SafeString:
    """``{{ comment.body|markdown:mentions }}``: ``mentions`` (a ``Mentions``) says who may be mentioned."""
    return render(text, mentions)
