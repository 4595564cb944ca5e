"""URLs of the orders pages (included by tracker/urls.py under /t/<tenant>/orders/).

``num`` is the converter tracker/urls.py registers before it includes this module: 1 to 15
digits, the range of order numbers too (their sort-key suffix has 15 digits).
"""

from django.urls import URLPattern, path

from tracker.views import orders

urlpatterns: list[URLPattern] = [
    path("", orders.order_list, name="order_list"),
    path("new/", orders.order_create, name="order_create"),
    path("<num:number>/", orders.order_detail, name="order_detail"),
    path("<num:number>/status/", orders.order_transition, name="order_transition"),
]
