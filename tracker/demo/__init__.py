"""Demo data that reads like a team's last weeks of work: issues, their history, comments, watchers."""
