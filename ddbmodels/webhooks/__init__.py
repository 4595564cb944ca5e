"""The webhooks table (issue 22, being built): a team's endpoints and each endpoint's deliveries.

Until its model lands it stores nothing, and says so: ``TEAM_DATA`` then declares how offboarding finds,
probes and deletes a team's endpoints and deliveries (ddbmodels.core.team_data).
"""

from ddbmodels.webhooks.team import TEAM_DATA

__all__ = ["TEAM_DATA"]
