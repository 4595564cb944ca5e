"""Staff "Tracker views" in the admin: every tenant's projects, issues, orders, attachments, leaderboards."""
