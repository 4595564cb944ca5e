"""The staff audit: what staff changed in tenants' data or started (raw item edits, jobs, offboarding), and who."""
