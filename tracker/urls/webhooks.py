"""URLs of the owners' webhooks page (included by tracker/urls under /t/<tenant>/settings/webhooks/)."""

from django.urls import URLPattern, path

from tracker.views import webhooks

urlpatterns: list[URLPattern] = [
    path("", webhooks.webhook_list, name="webhook_list"),
    path("<str:webhook>/", webhooks.webhook_detail, name="webhook_detail"),
    path("<str:webhook>/switch/", webhooks.webhook_switch, name="webhook_switch"),
    path("<str:webhook>/delete/", webhooks.webhook_delete, name="webhook_delete"),
    path("<str:webhook>/deliveries/<str:delivery>/redeliver/", webhooks.webhook_redeliver, name="webhook_redeliver"),
]
