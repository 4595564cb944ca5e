"""The ground floor of ddbmodels: what every pattern and table package stands on.

``connection`` (where DynamoDB is, the table registry, lazy clients), ``errors`` (the one domain
error tree), ``capacity`` (the meter hook and access-pattern tags), ``retry`` (the one
full-jitter backoff), ``keys`` (time keys, shard suffixes, ``utcnow``), ``tables`` (create, wait,
describe, delete, billing), ``threads`` (fan-out that keeps the meters), ``storage`` (the
object-store protocol archives and attachments are written through), ``exactly_once`` (the token
check and item + record transaction the numbering patterns share), ``items`` (any item of any table
as DynamoDB JSON: the staff item browser, every page of a low-level Query), ``batch`` (the one
BatchWriteItem loop, unprocessed items retried, paced by ``throttle``'s token bucket),
``transactions`` (raw TransactWriteItems parts), ``fast_parse`` (the raw client's answers, flat
values passed through), ``partitions`` (the partition planner), ``hot_keys`` (sampled partition
keys per request), ``team_data`` (the types of a table package's team-data declaration). Imports
nothing from the rest of ddbmodels, and nothing from Django.
"""
