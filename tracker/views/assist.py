"""(being built for issue 21: assist pages)."""
