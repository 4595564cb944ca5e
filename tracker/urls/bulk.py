"""URLs of the bulk pages (being built for issue 21)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
