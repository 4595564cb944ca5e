"""Views of the staff admin's DynamoDB pages (mounted at /admin/ddb/ by ``tracker.admin_site``)."""
