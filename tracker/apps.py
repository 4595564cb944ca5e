"""App config: points ddbmodels at the DynamoDB the settings name; installs default schedules."""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class TrackerConfig(AppConfig):
    default = True

    name = "tracker"
    verbose_name = "Tracker"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.db.models.signals import post_migrate, post_save

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
        from tracker.services.addresses import forget_replaced_address

        # A changed address (anywhere) loses the account's confirmation of the old one (issue 20, finding 3).
        post_save.connect(forget_replaced_address, sender=User, dispatch_uid="tracker.forget_replaced_address")


class TrackerAdminConfig(admin_apps.AdminConfig):
    """The admin app with Tracker's own site: DynamoDB pages beside the usual ModelAdmins."""

    default = False  # named explicitly in INSTALLED_APPS; TrackerConfig stays this module's default
    default_site = "tracker.admin_site.TrackerAdminSite"
