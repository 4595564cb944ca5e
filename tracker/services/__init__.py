"""Writes: check who may do it, call the ddbmodels pattern, keep the cache honest."""
