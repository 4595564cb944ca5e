"""App config: points ddbmodels at the DynamoDB the settings name."""

from django.apps import AppConfig


class TrackerConfig(AppConfig):
    name = "tracker"
    verbose_name = "Tracker"

    def ready(self) -> None:
        from django.conf import settings

        import ddbmodels

        ddbmodels.configure(
            endpoint_url=settings.DYNAMODB_ENDPOINT_URL,
            region=settings.AWS_DEFAULT_REGION,
            table_prefix=settings.DYNAMODB_TABLE_PREFIX,
        )
