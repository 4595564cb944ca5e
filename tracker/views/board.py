"""(being built for issue 21: board pages)."""
