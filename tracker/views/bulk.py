"""(being built for issue 21: bulk pages)."""
