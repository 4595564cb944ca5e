"""Helpers several test modules share (importable as ``tests.support``)."""
