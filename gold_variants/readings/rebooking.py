"""L16: may a forbidden modification be reached by cancelling and booking anew?"""

from __future__ import annotations

from typing import Any

from tau2.data_model.tasks import Action

from gold_variants._model import GoldVariant, RebookPredicate
from gold_variants.readings._base import TaskContext, new_action, rule
from gold_variants.readings._itinerary import (
    new_airports,
    requested_segment,
    target_reservation,
    updates_of,
)
from policy_model import FIXED_FLIGHT_CABINS


def _payable(book: dict) -> list[str]:
    """An in-place change is paid with one gift card or credit card ("Change flights" payment rule);
    a credit card first: a gift card may not cover the whole difference."""
    return sorted(
        (p["payment_id"] for p in book["payment_methods"] if not p["payment_id"].startswith("certificate_")),
        key=lambda pid: not pid.startswith("credit_card_"),
    )


def _bags_on_original(ctx: TaskContext, reservation: Any, book: dict, suffix: str) -> list[Action]:
    """The rebooking's bags, as a bag update on the original reservation (where they differ)."""
    payable = _payable(book)
    if not payable or (book["total_baggages"], book["nonfree_baggages"]) == (
        reservation.total_baggages, reservation.nonfree_baggages
    ):
        return []
    return [new_action(ctx, suffix, "update_reservation_baggages", {
        "reservation_id": reservation.reservation_id, "total_baggages": book["total_baggages"],
        "nonfree_baggages": book["nonfree_baggages"], "payment_id": payable[0],
    })]


def _facts_without_the_change(ctx: TaskContext, user_id: str) -> list[str] | None:
    """What a refusal still tells the user: the gold's communicate_info items that the unchanged records
    give (balances of the user's payment methods, singly or summed by kind). Figures of the refused
    transaction (task 14's charge of the rebooking, "44") are dropped; None where nothing is dropped."""
    told = list(ctx.task.evaluation_criteria.communicate_info or []) if ctx.task.evaluation_criteria else []
    user = ctx.db.users.get(user_id)
    if not told or user is None:
        return None
    facts: set[str] = set()
    by_kind: dict[str, float] = {}
    for method in user.payment_methods.values():
        amount = getattr(method, "amount", None)
        if amount is not None:
            facts.add(f"{amount:g}")
            by_kind[method.source] = by_kind.get(method.source, 0) + amount
    facts |= {f"{v:g}" for v in by_kind.values()}
    kept = [item for item in told if item in facts]
    return None if kept == told else kept


@rule("L16")
def cancel_and_rebook(ctx: TaskContext) -> list[GoldVariant]:
    if ctx.domain != "airline":
        return []
    reservation = target_reservation(ctx)
    if reservation is None:
        return []
    rid, user_id = reservation.reservation_id, reservation.user_id
    restricted = reservation.cabin in FIXED_FLIGHT_CABINS or bool(new_airports(ctx, reservation))
    cancels = [a for a in ctx.gold if a.name == "cancel_reservation" and a.arguments.get("reservation_id") == rid]
    same_party = [p.model_dump() for p in reservation.passengers]
    books = [
        a for a in ctx.gold
        if a.name == "book_reservation" and a.arguments.get("user_id") == user_id
        and a.arguments.get("passengers") == same_party  # a rebooking of the same trip, not a new one
    ]
    new = new_airports(ctx, reservation)
    subject = "refuse_route_change" if new else "refuse_basic_economy_modify"
    contested = {"cancel_reservation", "book_reservation", "update_reservation_flights"}
    kept = [a for a in ctx.gold if a.name not in contested]  # reads, a transfer, independent writes (bags)
    if cancels and books:
        kept += _bags_on_original(ctx, reservation, books[0].arguments, "L16_refuse_bags")
    refuse = ctx.variant(
        "L16", "refuse",
        "Cancel-and-rebook is a modification in disguise; the agent refuses or transfers, which the "
        "trajectory must show, and still does the independent requests the gold fulfils (e.g. a bag).",
        actions=kept,
        reading_kind="refusal",
        evidence=subject,
        preconditions=["no_false_policy"] if subject == "refuse_basic_economy_modify" else [],
        decline_subject=subject,
        communicate_info=_facts_without_the_change(ctx, reservation.user_id),
    )
    if cancels and books and restricted:  # the gold itself cancels and rebooks: in-place is the other reading
        book = books[0].arguments
        payable = _payable(book)
        if not payable:
            return [refuse]
        payment_id = payable[0]
        in_place = [a for a in ctx.gold if a.name not in ("cancel_reservation", "book_reservation")]
        in_place.append(new_action(ctx, "L16_update", "update_reservation_flights", {
            "reservation_id": rid, "cabin": book["cabin"], "flights": book["flights"], "payment_id": payment_id,
        }))
        in_place += _bags_on_original(ctx, reservation, book, "L16_bags")
        return [
            ctx.variant(
                "L16", "modify_in_place",
                f"Update {rid} to the gold's new flights (and bags) instead of cancelling and rebooking.",
                actions=in_place,
                # Saying the route cannot change and then changing it in place is no reading (see _evidence).
                preconditions=["no_prior_decline"] if new else [],
                decline_subject="refuse_route_change" if new else None,
            ),
            refuse,
        ]
    if not restricted:
        return []
    updates = updates_of(ctx, rid)
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
