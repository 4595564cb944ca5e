"""Reads: fetch (and authorize) what views show. Writes live in tracker.services."""
