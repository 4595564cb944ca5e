"""URLs of the orders pages (included by tracker/urls under /t/<tenant>/orders/)."""

from django.urls import URLPattern, path

import tracker.urls.converters  # noqa: F401  (num: order numbers have 1 to 15 digits too)
from tracker.views import orders

urlpatterns: list[URLPattern] = [
    path("", orders.order_list, name="order_list"),
    path("new/", orders.order_create, name="order_create"),
    path("<num:number>/", orders.order_detail, name="order_detail"),
    path("<num:number>/status/", orders.order_transition, name="order_transition"),
]
