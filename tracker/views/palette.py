"""(being built for issue 21: palette pages)."""
