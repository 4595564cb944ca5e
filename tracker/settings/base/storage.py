"""Static files and file storage: uploads, archives of dropped event tables, imports waiting for their job."""

from __future__ import annotations

from typing import Any

from tracker.env import ROOT, env

# ---------------------------------------------------------------------------------------------
# Static files
# ---------------------------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [ROOT / "static"]
STATIC_ROOT = ROOT / "var" / "static"

# ---------------------------------------------------------------------------------------------
# File storage: uploads (default) and archives of dropped event tables ("archive")
# ---------------------------------------------------------------------------------------------
ARCHIVE_S3_BUCKET = env("ARCHIVE_S3_BUCKET", default="")
_s3_prefix = env("ARCHIVE_S3_PREFIX", default="tracker-archive")


def _s3(location: str) -> dict[str, Any]:
    """A storage in the archive's S3 bucket (ARCHIVE_S3_BUCKET) under ``location``."""
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ARCHIVE_S3_BUCKET,
            "location": location,
            "endpoint_url": env("ARCHIVE_S3_ENDPOINT_URL", default=None) or None,
            "file_overwrite": True,
            "default_acl": None,
        },
    }


def _folder(location: str, **options: Any) -> dict[str, Any]:
    """A storage in a folder of this machine."""
    return {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": location, **options}}


STORAGES = {
    "default": _folder(env("MEDIA_ROOT", default=str(ROOT / "var" / "media"))),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # Archives of dropped event tables: the S3 bucket when ARCHIVE_S3_BUCKET is set, a folder otherwise.
    "archive": _s3(_s3_prefix)
    if ARCHIVE_S3_BUCKET
    else _folder(env("ARCHIVE_DIR", default=str(ROOT / "var" / "archive")), allow_overwrite=True),
    # Uploaded GitHub exports waiting for their import job: where every worker can read them (the
    # archive's S3 bucket under <prefix>/imports when it is set, a folder otherwise); each file is
    # deleted once its import has finished.
    "imports": _s3(f"{_s3_prefix}/imports")
    if ARCHIVE_S3_BUCKET
    else _folder(env("IMPORTS_DIR", default=str(ROOT / "var" / "imports"))),
}
