"""A whole tenant across every table: is anything stored, and offboarding (export, verify, delete).

What each table stores for a team is the table package's own declaration (``TEAM_DATA``, see
``core.team_data``); ``declarations`` finds them, and refuses a table package that declares nothing.
"""

from ddbmodels.core.team_data import Shards
from ddbmodels.tenants.declarations import MissingDeclaration, team_data
from ddbmodels.tenants.offboarding import ROOT as EXPORT_ROOT
from ddbmodels.tenants.offboarding import export_tenant, offboard, remaining
from ddbmodels.tenants.reads import tenant_has_data

__all__ = [
    "EXPORT_ROOT",
    "MissingDeclaration",
    "Shards",
    "export_tenant",
    "offboard",
    "remaining",
    "team_data",
    "tenant_has_data",
]
