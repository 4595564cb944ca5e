"""The ``label_class`` filter: a label's chip classes from the colours the view hands the template (reads nothing)."""

from django import template

register = template.Library()
DEFAULT_CLASS = "label label-grey"


@register.filter
def label_class(label: str, colours: dict[str, str] | None) -> str:
    """``"label label-<colour>"`` for ``label`` in ``colours`` (name → palette colour), else the default grey."""
    colour = (colours or {}).get(label)
    return f"label label-{colour}" if colour and colour.isalpha() else DEFAULT_CLASS
