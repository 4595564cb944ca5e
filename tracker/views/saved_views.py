"""(being built for issue 21: saved_views pages)."""
