"""Settings split by environment: base, local (make run), test, production."""
