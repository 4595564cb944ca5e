"""Development helpers: start DynamoDB Local and Redis for tests, benchmarks and `make run`."""
