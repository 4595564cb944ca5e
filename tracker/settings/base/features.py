"""The product's own knobs: orders, leaderboard, attachments, imports (each refuses impossible values)."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Orders: global order numbers from the counters table, orders sorted by time
# ---------------------------------------------------------------------------------------------
# "atomic" (default): UpdateItem ADD then PutItem — 4 WCU an order, no reads, no retries, as fast
# as the counter item takes writes; a put that fails after the ADD leaves a gap in the numbers.
# "gapless": consistent read + one transaction — 1 RCU + 8 WCU an order and retries under
# contention, but every number is used exactly once (for invoice-like numbering rules).
ORDER_NUMBERING = env("ORDER_NUMBERING", default="atomic")
# Write shards of the orders' by_time index (orders#0 … orders#N-1); raise it freely, never lower it.
ORDER_SHARDS = env.int("ORDER_SHARDS", default=4)
if ORDER_NUMBERING not in ("atomic", "gapless") or ORDER_SHARDS < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ORDER_NUMBERING must be atomic or gapless, and ORDER_SHARDS at least 1")
# ---------------------------------------------------------------------------------------------
# Leaderboard: points for resolved issues, a write-sharded top index, tops cached in Redis
# ---------------------------------------------------------------------------------------------
# Write shards of the scores table's top index (<tenant>#1 … #N); raise it freely, never lower it.
LEADERBOARD_SHARDS = env.int("LEADERBOARD_SHARDS", default=4)
# Seconds a cached top 10 / top 50 lives; every score change in the tenant drops it sooner.
LEADERBOARD_CACHE_SECONDS = env.int("LEADERBOARD_CACHE_SECONDS", default=30)
if LEADERBOARD_SHARDS < 1 or LEADERBOARD_CACHE_SECONDS < 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("LEADERBOARD_SHARDS must be at least 1, LEADERBOARD_CACHE_SECONDS at least 0")
# ---------------------------------------------------------------------------------------------
# Attachments: files in the "default" storage, their state in DynamoDB (sparse in_flight index)
# ---------------------------------------------------------------------------------------------
# Largest file a member may attach; bigger ones are cut off while the upload is parsed (never
# spooled to disk) and refused. Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count file parts,
# and FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) only decides memory versus a temporary file: both stay.
ATTACHMENT_MAX_BYTES = env.int("ATTACHMENT_MAX_BYTES", default=10 * 1024 * 1024)
# An attachment still Attaching or Detaching this long after it entered the state is stuck: the
# reconcile_attachments job (every 15 minutes) finishes or rolls it back from what storage holds.
ATTACHMENT_STUCK_SECONDS = env.int("ATTACHMENT_STUCK_SECONDS", default=600)
if ATTACHMENT_MAX_BYTES < 1 or ATTACHMENT_STUCK_SECONDS < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ATTACHMENT_MAX_BYTES and ATTACHMENT_STUCK_SECONDS must be at least 1")
# ---------------------------------------------------------------------------------------------
# Imports: an owner uploads a GitHub issues export for a new project (tracker/views/imports.py)
# ---------------------------------------------------------------------------------------------
# Largest export accepted; a bigger file is cut off while the upload is parsed (never spooled) and
# refused with a form error. Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count file parts.
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=20 * 1024 * 1024)
# WCU per second the import job may write (a token bucket): a fifth of one partition's 1,000 WCU/s,
# so a team moving in leaves the tables room for everyone's own writes.
IMPORT_MAX_WCU = env.float("IMPORT_MAX_WCU", default=200.0)
if IMPORT_MAX_BYTES < 1 or IMPORT_MAX_WCU <= 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("IMPORT_MAX_BYTES must be at least 1 and IMPORT_MAX_WCU above 0")
