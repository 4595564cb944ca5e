"""Static files and file storage: uploads, archives of dropped event tables, imports waiting for their job."""

from __future__ import annotations

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
if ARCHIVE_S3_BUCKET:
    _archive_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ARCHIVE_S3_BUCKET,
            "location": env("ARCHIVE_S3_PREFIX", default="tracker-archive"),
            "endpoint_url": env("ARCHIVE_S3_ENDPOINT_URL", default=None) or None,
            "file_overwrite": True,
            "default_acl": None,
        },
    }
else:
    _archive_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("ARCHIVE_DIR", default=str(ROOT / "var" / "archive")), "allow_overwrite": True},
    }
# Uploaded GitHub exports waiting for their import job ("imports"): where every worker can read them
# (the archive's S3 bucket under <prefix>/imports when it is set, a folder otherwise); each file is
# deleted once its import has finished.
if ARCHIVE_S3_BUCKET:
    _imports_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ARCHIVE_S3_BUCKET,
            "location": env("ARCHIVE_S3_PREFIX", default="tracker-archive") + "/imports",
            "endpoint_url": env("ARCHIVE_S3_ENDPOINT_URL", default=None) or None,
            "file_overwrite": True,
            "default_acl": None,
        },
    }
else:
    _imports_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("IMPORTS_DIR", default=str(ROOT / "var" / "imports"))},
    }
STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env("MEDIA_ROOT", default=str(ROOT / "var" / "media"))},
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "archive": _archive_storage,
    "imports": _imports_storage,
}
