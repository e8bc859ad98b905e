"""A concrete action list that enacts a variant's reading (for agents that act readings out).

Action-list variants are their own witness. For a predicate variant the witness makes the choices the
predicate leaves open: the first one-stop itinerary on the requested date, a credit card of the user
(else gift cards by balance), no insurance, no bags.
"""

from __future__ import annotations

import json
from typing import Any

from tau2.data_model.tasks import Action

from gold_variants._model import (
    CertificatePredicate,
    GoldVariant,
    RebookPredicate,
    UpgradeModifyPredicate,
)


def _tools() -> Any:
    """The airline toolkit on the pristine database that the clause rules read, loaded once per process: a
    witness only reads it (a database load is ~70 ms; the demo's reading agents ask in a third of trials)."""
    from gold_variants.readings._base import _tools as pristine

    return pristine("airline")


def _pay(db: Any, user_id: str, preferred: str, amount: int) -> list[dict]:
    methods = db.users[user_id].payment_methods
    cards = sorted((m for m in methods if m.startswith("credit_card")), key=lambda m: m != preferred)
    if cards:
        return [{"payment_id": cards[0], "amount": amount}]
    plan, left = [], amount
    for pid in sorted((m for m in methods if m.startswith("gift_card")), key=lambda m: -methods[m].amount):
        take = min(left, int(methods[pid].amount))
        if take:
            plan.append({"payment_id": pid, "amount": take})
            left -= take
    if left:
        raise ValueError(f"{user_id} cannot pay {amount}")
    return plan


def _action(variant: GoldVariant, i: int, name: str, arguments: dict) -> Action:
    return Action(action_id=f"{variant.task_id}_{variant.gold_id}_{i}", name=name, arguments=arguments)


def witness(variant: GoldVariant) -> list[Action]:
    if variant.actions is not None:
        return list(variant.actions)
    p = variant.predicate
    assert p is not None, f"{variant.gold_id}: a variant has actions or a predicate"  # GoldVariant's validator
    tools = _tools()
    db = tools.db
    res = db.reservations[p.reservation_id]
    calls: list[tuple[str, dict]] = [("get_reservation_details", {"reservation_id": res.reservation_id})]
    if isinstance(p, CertificatePredicate):  # keep the reservation; read what the preconditions ask for, then send
        delayed = next(
            f for f in res.flights
            if getattr(db.flights[f.flight_number].dates.get(f.date), "status", None) == "delayed"
        )
        calls = [
            ("get_user_details", {"user_id": p.user_id}), *calls,
            ("get_flight_status", {"flight_number": delayed.flight_number, "date": delayed.date}),
            ("send_certificate", {"user_id": p.user_id, "amount": p.amount}),
        ]
        return [_action(variant, i, n, a) for i, (n, a) in enumerate(calls)]
    if isinstance(p, UpgradeModifyPredicate):
        payment = next(x.payment_id for x in res.payment_history if x.payment_id.startswith("credit_card"))
        date = p.date or res.flights[0].date
        legs = tools.search_onestop_flight(res.origin, res.destination, date)[0]
        new = [{"flight_number": leg.flight_number, "date": date} for leg in legs]
        same = [{"flight_number": f.flight_number, "date": f.date} for f in res.flights]
        base = {"reservation_id": res.reservation_id, "cabin": "economy", "payment_id": payment}
        if p.calls == 2:
            calls.append(("update_reservation_flights", {**base, "flights": same}))
        calls.append(("update_reservation_flights", {**base, "flights": new}))
        return [_action(variant, i, n, a) for i, (n, a) in enumerate(calls)]
    assert isinstance(p, RebookPredicate)
    passengers = [x.model_dump() for x in res.passengers]
    cabin = "economy"
    if p.flights is not None:
        flights = [{"flight_number": f, "date": d} for f, d in p.flights]
        origin, trip = res.origin, res.flight_type
        destination = db.flights[p.flights[0][0]].destination
    else:
        assert p.segment is not None, f"{variant.gold_id}: a rebooking names its flights or its segment"
        date = next(f.date for f in res.flights if f.origin == p.segment[0])
        direct = tools.search_direct_flight(p.segment[0], p.segment[1], date)[0]
        flights = [{"flight_number": direct.flight_number, "date": date}]
        origin, destination, trip = p.segment[0], p.segment[1], "one_way"
    amount = sum(db.flights[f["flight_number"]].dates[f["date"]].prices[cabin] for f in flights) * len(passengers)
    if p.original == "cancelled":
        # Where the reading leaves the original to the agent, the witness keeps it: a cancellation the rules
        # forbid (a flight already flown) voids any credit (``_conduct``, #40 class 5).
        calls.append(("cancel_reservation", {"reservation_id": res.reservation_id}))
    calls.append(("book_reservation", {
        "user_id": p.user_id, "origin": origin, "destination": destination, "flight_type": trip, "cabin": cabin,
        "flights": flights, "passengers": passengers,
        "payment_methods": _pay(db, p.user_id, res.payment_history[0].payment_id, amount),
        "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no",
    }))
    return [_action(variant, i, n, a) for i, (n, a) in enumerate(calls)]


# What an agent acting out a reading says, per evidence kind: a decline naming the contested clause.
EVIDENCE_TEXT: dict[str, str] = {
    "refuse_basic_economy_modify": (
        "I'm sorry, but I cannot make that change: basic economy flights cannot be modified under our policy."
    ),
    "refuse_route_change": (
        "I'm sorry, but I cannot do that: our policy does not allow changing the origin or destination of a "
        "reservation."
    ),
    "declines_compensation": (
        "Our policy only allows a delay certificate if you change or cancel the reservation, so I cannot offer "
        "compensation without that."
    ),
    "refusal": "I'm sorry, but I cannot do that: the policy does not allow this request.",
}
DONE_TEXT = "Your request has been handled."
# What a user who wants compensation says (``user_asked_compensation``: the agent must not offer it first).
ASK_COMPENSATION_TEXT = "I would like compensation for the delay."


def closing_text(evidence: str | None, communicate_info: list[str] | None = None) -> str:
    """An agent's last message for a plan: its evidence sentence, then what it must tell the user."""
    return " ".join([EVIDENCE_TEXT.get(evidence or "", DONE_TEXT), *(communicate_info or [])])


def confirmation_text(step: int, tool: str, domain: str, arguments: dict[str, Any] | None = None) -> str | None:
    """What an agent acting out a plan asks before the call at ``step`` (0-based) where the call writes: the
    action's details (its arguments), then the question, so that details listed and the user's yes come before
    every write (the policy's conduct rule, a universal check of every credit, #40); None for a call that does
    not write."""
    from gold_variants.readings._base import write_tools

    if tool not in write_tools(domain):
        return None
    details = "; ".join(
        f"{name}: {value if isinstance(value, str) else json.dumps(value)}" for name, value in (arguments or {}).items()
    )
    return f"Step {step + 1} is {tool}" + (f" with {details}" if details else "") + ". Shall I proceed? (yes/no)"