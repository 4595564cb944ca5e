"""App config: points ddbmodels at the DynamoDB the settings name; installs default schedules."""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class TrackerConfig(AppConfig):
    default = True

    name = "tracker"
    verbose_name = "Tracker"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_migrate

        import ddbmodels
        from tracker.schedules import install_defaults

        ddbmodels.configure(
            endpoint_url=settings.DYNAMODB_ENDPOINT_URL,
            region=settings.AWS_DEFAULT_REGION,
            table_prefix=settings.DYNAMODB_TABLE_PREFIX,
            connect_timeout=settings.DYNAMODB_CONNECT_TIMEOUT,
            read_timeout=settings.DYNAMODB_READ_TIMEOUT,
            max_attempts=settings.DYNAMODB_MAX_ATTEMPTS,
        )
        from tracker import hot_key_stats

        hot_key_stats.install()  # sampled partition keys of DynamoDB calls → Redis (the hot-keys page)
        # After every migrate (the beat tables exist by then): add the default schedules that are missing.
        post_migrate.connect(install_defaults, sender=self, dispatch_uid="tracker.install_default_schedules")


class TrackerAdminConfig(admin_apps.AdminConfig):
    """The admin app with Tracker's own site: DynamoDB pages beside the usual ModelAdmins."""

    default = False  # named explicitly in INSTALLED_APPS; TrackerConfig stays this module's default
    default_site = "tracker.admin_site.TrackerAdminSite"
