"""(being built for issue 21: notify_settings pages)."""
