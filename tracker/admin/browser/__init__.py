"""The admin's DynamoDB item browser: Query/Scan any table of the app, view, edit and delete items."""
