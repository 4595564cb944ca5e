"""Writes of the staff admin's DynamoDB pages: item edits and deletes, starting jobs."""
