"""L16: may a forbidden modification be reached by cancelling and booking anew?"""

from __future__ import annotations

from gold_variants._model import GoldVariant, RebookPredicate
from gold_variants.readings._base import TaskContext, new_action, rule
from gold_variants.readings._itinerary import (
    new_airports,
    requested_segment,
    target_reservation,
    updates_of,
)


@rule("L16")
def cancel_and_rebook(ctx: TaskContext) -> list[GoldVariant]:
    if ctx.domain != "airline":
        return []
    reservation = target_reservation(ctx)
    if reservation is None:
        return []
    rid, user_id = reservation.reservation_id, reservation.user_id
    restricted = reservation.cabin == "basic_economy" or bool(new_airports(ctx, reservation))
    cancels = [a for a in ctx.gold if a.name == "cancel_reservation" and a.arguments.get("reservation_id") == rid]
    same_party = [p.model_dump() for p in reservation.passengers]
    books = [
        a for a in ctx.gold
        if a.name == "book_reservation" and a.arguments.get("user_id") == user_id
        and a.arguments.get("passengers") == same_party  # a rebooking of the same trip, not a new one
    ]
    refuse = ctx.variant(
        "L16", "refuse",
        "Cancel-and-rebook is a modification in disguise; the agent refuses or transfers, which the "
        "trajectory must show.",
        actions=[a for a in ctx.gold if a.name not in ctx.write_tools or a.name == "transfer_to_human_agents"],
        evidence="refusal",
    )
    if cancels and books and restricted:  # the gold itself cancels and rebooks: in-place is the other reading
        book = books[0].arguments
        # An in-place change is paid with one gift card or credit card ("Change flights" payment rule).
        # A credit card first: a gift card may not cover the whole difference.
        payable = sorted(
            (p["payment_id"] for p in book["payment_methods"] if not p["payment_id"].startswith("certificate_")),
            key=lambda pid: not pid.startswith("credit_card_"),
        )
        if not payable:
            return [refuse]
        payment_id = payable[0]
        in_place = [a for a in ctx.gold if a.name not in ("cancel_reservation", "book_reservation")]
        in_place.append(new_action(ctx, "L16_update", "update_reservation_flights", {
            "reservation_id": rid, "cabin": book["cabin"], "flights": book["flights"], "payment_id": payment_id,
        }))
        if (book["total_baggages"], book["nonfree_baggages"]) != (reservation.total_baggages, reservation.nonfree_baggages):
            in_place.append(new_action(ctx, "L16_bags", "update_reservation_baggages", {
                "reservation_id": rid, "total_baggages": book["total_baggages"],
                "nonfree_baggages": book["nonfree_baggages"], "payment_id": payment_id,
            }))
        return [
            ctx.variant(
                "L16", "modify_in_place",
                f"Update {rid} to the gold's new flights (and bags) instead of cancelling and rebooking.",
                actions=in_place,
            ),
            refuse,
        ]
    if not restricted:
        return []
    updates = updates_of(ctx, rid)
    new = new_airports(ctx, reservation)
    if updates and new:  # the gold updates in place across a destination change
        flights = ctx.gold[updates[-1]].arguments["flights"]
        return [
            ctx.variant(
                "L16", "cancel_and_rebook",
                f"Cancel {rid} and book the same new flights as a new reservation for the same passengers "
                "(payment, insurance and bags are the agent's choice).",
                predicate=RebookPredicate(
                    reservation_id=rid, user_id=user_id,
                    flights=[(f["flight_number"], f["date"]) for f in flights],
                ),
            ),
            refuse,
        ]
    segment = requested_segment(ctx, new)
    if not ctx.writes() and segment is not None:  # the gold refuses a destination change
        return [
            ctx.variant(
                "L16", "cancel_and_rebook",
                f"Book a new reservation with a {segment[0]}-{segment[1]} segment for the same passengers, "
                f"cancelling {rid} or keeping its flown part (the agent's choice).",
                predicate=RebookPredicate(
                    reservation_id=rid, user_id=user_id, segment=segment, original="cancelled_or_kept"
                ),
            )
        ]
    return []
