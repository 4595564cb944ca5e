"""One module per DynamoDB access pattern; each function's docstring opens with its cost."""
