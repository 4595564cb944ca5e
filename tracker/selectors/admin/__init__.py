"""Reads of the staff admin's DynamoDB pages: tables, items, jobs, capacity (the Tracker views reuse the site's)."""
