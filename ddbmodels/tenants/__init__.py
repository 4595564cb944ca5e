"""A whole tenant across every table: is anything stored, and offboarding (export, verify, delete)."""

from ddbmodels.tenants.offboarding import Shards, export_tenant, offboard, remaining
from ddbmodels.tenants.reads import tenant_has_data

__all__ = ["Shards", "export_tenant", "offboard", "remaining", "tenant_has_data"]
