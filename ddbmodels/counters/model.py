"""The counters table: one item per named counter, holding the last number handed out.

    PK  pk = the counter's name ("orders")
        v  = the last value handed out (N); the item is missing until the first number

The next number is one UpdateItem ``ADD v :1`` with
``ReturnValues=UPDATED_NEW`` — DynamoDB serializes the writes of one item, so every caller gets
a different value, with no read and no retry. The price is a hot key: one counter is one item on
one partition, so it hands out at most ~1,000 numbers a second (a partition's write limit) no
matter how many callers there are. The patterns that use it are in ``patterns.counters``.
"""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register

ORDERS_COUNTER = "orders"


@register("counters")
class CounterItem(Model):
    """A named counter. Its value only ever grows; nothing deletes a counter."""

    class Meta:
        table_name = "counters"  # the base name: register() prefixes it

    name = UnicodeAttribute(hash_key=True, attr_name="pk")
    value = NumberAttribute(attr_name="v", default=0)
