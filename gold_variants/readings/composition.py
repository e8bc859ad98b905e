"""L6: may a cabin upgrade unlock flight changes on a basic-economy reservation?"""

from __future__ import annotations

import re

from gold_variants._model import GoldVariant, UpgradeModifyPredicate
from gold_variants.readings._base import TaskContext, new_action, rule
from gold_variants.readings._itinerary import (
    new_airports,
    requested_date,
    same_flights,
    target_reservation,
    updates_of,
)
from policy_model import FIXED_FLIGHT_CABINS

_WANTS_CHANGE = re.compile(r"\bchange (?:the|your|my)?\s*flight", re.IGNORECASE)


@rule("L6")
def upgrade_then_modify(ctx: TaskContext) -> list[GoldVariant]:
    if ctx.domain != "airline":
        return []
    reservation = target_reservation(ctx)
    if reservation is None or reservation.cabin not in FIXED_FLIGHT_CABINS:
        return []
    if new_airports(ctx, reservation):
        return []  # a change of origin or destination is forbidden whatever the cabin: that is L16
    rid = reservation.reservation_id
    updates = updates_of(ctx, rid)
    if len(updates) == 2:
        first, second = (ctx.gold[i] for i in updates)
        upgrade_only = first.arguments["cabin"] != "basic_economy" and same_flights(
            first.arguments["flights"], reservation
        )
        if not upgrade_only:
            return []
        combined = new_action(ctx, "L6_combined", "update_reservation_flights", {
            "reservation_id": rid,
            "cabin": second.arguments["cabin"],
            "flights": second.arguments["flights"],
            "payment_id": second.arguments["payment_id"],
        })
        single = [a for i, a in enumerate(ctx.gold) if i not in updates]
        single.insert(updates[0], combined)
        return [
            ctx.variant(
                "L6", "single_call",
                "One update carrying both the cabin change and the new flights reaches the gold's itinerary "
                "with one payment entry instead of two (same net charge).",
                actions=single,
            ),
            ctx.variant(
                "L6", "refuse",
                "Basic-economy status survives the upgrade, so the flight change is declined; the "
                "trajectory must show the refusal.",
                actions=[a for i, a in enumerate(ctx.gold) if i not in updates],
                reading_kind="refusal",
                evidence="refuse_basic_economy_modify",
                preconditions=["no_false_policy"],
                decline_subject="refuse_basic_economy_modify",
            ),
        ]
    gold_refuses = not ctx.writes() and not any(a.name == "transfer_to_human_agents" for a in ctx.gold)
    if updates or not gold_refuses or not _WANTS_CHANGE.search(ctx.scenario):
        return []
    user_id = reservation.user_id
    date = requested_date(ctx)
    when = f" to {date}" if date else ""
    return [
        ctx.variant(
            "L6", "two_calls",
            f"Upgrade {rid} out of basic economy on its current flights, then change the flights{when} "
            "in a second update (origin, destination and trip type kept).",
            predicate=UpgradeModifyPredicate(reservation_id=rid, user_id=user_id, calls=2, date=date),
        ),
        ctx.variant(
            "L6", "single_call",
            f"One update that upgrades {rid} and changes its flights{when} together.",
            predicate=UpgradeModifyPredicate(reservation_id=rid, user_id=user_id, calls=1, date=date),
        ),
    ]
