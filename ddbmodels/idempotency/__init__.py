"""The idempotency table: idempotency key → the item it created (issues, orders), kept a day."""

from ddbmodels.idempotency.model import RETENTION, CreationRecord, new_record, record_key
from ddbmodels.idempotency.reads import record_get

__all__ = ["RETENTION", "CreationRecord", "new_record", "record_get", "record_key"]
