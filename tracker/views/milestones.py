"""(being built for issue 21: milestones pages)."""
