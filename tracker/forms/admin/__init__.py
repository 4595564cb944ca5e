"""Forms of the staff admin's DynamoDB pages: the item browser, the jobs, the Tracker views."""
