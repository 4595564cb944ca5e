"""URLs of the labels pages (being built for issue 21)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
