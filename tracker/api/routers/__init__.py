"""The API's operations, one router per area (each added to ``tracker.api.api`` in ``tracker/api/__init__.py``)."""
