"""URLs of the assist pages (being built for issue 21)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
