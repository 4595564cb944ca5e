"""DynamoDB: endpoint, region, table prefix, timeouts and retries, hot keys, activity-event tables."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# DynamoDB (ddbmodels reads the same variables; settings pass them on in AppConfig.ready)
# ---------------------------------------------------------------------------------------------
DYNAMODB_ENDPOINT_URL = env("DYNAMODB_ENDPOINT_URL", default=None) or None
AWS_DEFAULT_REGION = env("AWS_DEFAULT_REGION", default="us-east-1")
DYNAMODB_TABLE_PREFIX = env("DYNAMODB_TABLE_PREFIX", default="tracker-")
DYNAMODB_BILLING_MODE = env("DYNAMODB_BILLING_MODE", default="PAY_PER_REQUEST")
# How long a call waits to connect and for an answer, and how many attempts it makes in all
# (botocore "standard" retries with jittered backoff: throttling, 5xx, connection errors,
# timeouts). What is still failing after them is a 503 page with Retry-After; jobs retry later.
DYNAMODB_CONNECT_TIMEOUT = env.float("DYNAMODB_CONNECT_TIMEOUT", default=1.0)
DYNAMODB_READ_TIMEOUT = env.float("DYNAMODB_READ_TIMEOUT", default=2.0)
DYNAMODB_MAX_ATTEMPTS = env.int("DYNAMODB_MAX_ATTEMPTS", default=3)
# Hot keys (admin page /admin/ddb/hot-keys/): the share of DynamoDB requests whose partition keys
# are counted (0-1; each counts 1/rate), and how often a process ships its counts to Redis.
DYNAMODB_HOT_KEYS_SAMPLE_RATE = env.float("DYNAMODB_HOT_KEYS_SAMPLE_RATE", default=0.1)
DYNAMODB_HOT_KEYS_FLUSH_SECONDS = env.float("DYNAMODB_HOT_KEYS_FLUSH_SECONDS", default=5.0)

# Activity events: one table per period (<prefix>events-2026-11 for months), rotated and archived.
EVENTS_PERIOD = env("EVENTS_PERIOD", default="month")  # day | week | month
EVENTS_RETENTION = env.int("EVENTS_RETENTION", default=3)  # past periods kept in DynamoDB
EVENTS_SHARDS = env.int("EVENTS_SHARDS", default=4)  # write shards of the by-day index
EVENTS_BILLING_MODE = env("EVENTS_BILLING_MODE", default=DYNAMODB_BILLING_MODE)
EVENTS_HOT_THROUGHPUT = (env.int("EVENTS_HOT_RCU", default=10), env.int("EVENTS_HOT_WCU", default=10))
EVENTS_COLD_THROUGHPUT = (env.int("EVENTS_COLD_RCU", default=1), env.int("EVENTS_COLD_WCU", default=1))
EVENTS_ARCHIVE_SEGMENTS = env.int("EVENTS_ARCHIVE_SEGMENTS", default=4)
