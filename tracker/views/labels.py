"""(being built for issue 21: labels pages)."""
