"""URLs of the palette pages (being built for issue 21)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
