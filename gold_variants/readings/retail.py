"""R1 (modify once: one success or one attempt?) and R2 (returning a modified order), in retail.

Both rules look for tasks that exercise the clause. A rule that finds none returns nothing, and
``harness variants check`` reports the clause as exercised by no task.
"""

from __future__ import annotations

from collections import Counter

from gold_variants._model import GoldVariant
from gold_variants.readings._base import TaskContext, rule
from policy_model import ONCE_PER_ORDER

_ONCE_TOOLS = tuple(sorted(ONCE_PER_ORDER))  # "Exchange or modify order tools can only be called once per order."


@rule("R1")
def modify_once(ctx: TaskContext) -> list[GoldVariant]:
    """Exercised where a gold calls the same exchange/modify tool on one order more than once.

    (A gold that calls *different* tools on one order, one of which fails on the order's status, as
    retail task 64 does, does not turn on this clause.)
    """
    if ctx.domain != "retail":
        return []
    calls = Counter((a.name, a.arguments.get("order_id")) for a in ctx.gold if a.name in _ONCE_TOOLS)
    repeated = [key for key, n in calls.items() if n > 1]
    if not repeated:
        return []
    name, order = repeated[0]
    first = next(i for i, a in enumerate(ctx.gold) if (a.name, a.arguments.get("order_id")) == (name, order))
    return [
        ctx.variant(
            "R1", "one_attempt",
            f"{name} is called more than once on {order}; under the one-attempt reading only the first call stands.",
            actions=[
                a for i, a in enumerate(ctx.gold)
                if i == first or (a.name, a.arguments.get("order_id")) != (name, order)
            ],
        )
    ]


@rule("R2")
def return_modified(ctx: TaskContext) -> list[GoldVariant]:
    """Exercised where a gold returns an order whose items were modified."""
    if ctx.domain != "retail":
        return []
    orders = ctx.db.orders
    returned = [a.arguments.get("order_id") for a in ctx.gold if a.name == "return_delivered_order_items"]
    modified = [o for o in returned if o in orders and "modif" in orders[o].status]
    if not modified:
        return []
    return [
        ctx.variant(
            "R2", "not_returnable",
            f"Order {modified[0]} was modified; under this reading it cannot be returned.",
            actions=[a for a in ctx.gold if a.name != "return_delivered_order_items"],
            reading_kind="refusal",
            evidence="refusal",
        )
    ]
