"""Template filters of the order pages: human labels for stored codes, a colour for each status."""

from django import template

from tracker.forms.orders import DELIVERY_LABELS, ORDER_STATUS_LABELS, PRODUCT_LABELS

register = template.Library()

# The site's status colours (site.css): pending yellow, paid blue, fulfilled green, cancelled grey.
_STATUS_CLASSES = {"pending": "in_progress", "paid": "resolved", "fulfilled": "open", "cancelled": "closed"}


@register.filter
def order_status_label(code: str) -> str:
    return ORDER_STATUS_LABELS.get(code, code)


@register.filter
def order_status_class(code: str) -> str:
    return f"status-{_STATUS_CLASSES.get(code, 'closed')}"


@register.filter
def product_label(code: str) -> str:
    return PRODUCT_LABELS.get(code, code)


@register.filter
def delivery_label(code: str) -> str:
    return DELIVERY_LABELS.get(code, code)
