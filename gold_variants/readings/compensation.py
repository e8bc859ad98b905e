"""Delay compensation: the prerequisite clause (L3/L4) and disjunctive eligibility (L5)."""

from __future__ import annotations

import re
from typing import Any

from tau2.data_model.tasks import Action

from conversation_reading import flight_status
from gold_variants._model import CertificatePredicate, GoldVariant
from gold_variants.readings._base import TaskContext, new_action, rule
from policy_model import COMPENSATION_PER_PASSENGER, ELIGIBLE_TIERS

_DELAY = re.compile(r"\bdelay", re.IGNORECASE)
PER_PASSENGER = COMPENSATION_PER_PASSENGER["delayed"]  # "$50 times the number of passengers"


def _delay_case(ctx: TaskContext) -> tuple[Any, Any, int] | None:
    """(user, delayed reservation, certificate amount) when the task is a delay complaint whose gold
    completes no change or cancellation; None otherwise."""
    if ctx.domain != "airline" or not _DELAY.search(ctx.scenario):
        return None
    if any(a.name != "send_certificate" for a in ctx.writes()):
        return None  # a change or cancellation was completed: the prerequisite holds either way
    user = ctx.db.users.get(ctx.user_id() or "")
    if user is None:
        return None
    delayed = [
        ctx.db.reservations[rid]
        for rid in user.reservations
        if rid in ctx.db.reservations
        and any(flight_status(ctx.db, f.flight_number, f.date) == "delayed" for f in ctx.db.reservations[rid].flights)
    ]
    if len(delayed) != 1:
        return None  # which reservation the complaint is about is not determined by the data
    reservation = delayed[0]
    return user, reservation, PER_PASSENGER * len(reservation.passengers)


def _certificate(ctx: TaskContext, user_id: str, amount: int, suffix: str):
    return new_action(ctx, suffix, "send_certificate", {"user_id": user_id, "amount": amount})


def _checks(ctx: TaskContext, user: Any, reservation: Any) -> list[Action]:
    """The reads that issuing a delay certificate rests on, where the gold lacks them: the user's
    membership and the delayed flight's status (the ``membership_consistent`` and ``delay_confirmed``
    preconditions)."""
    have = {(a.name, tuple(sorted(a.arguments.items()))) for a in ctx.gold}
    reads = [("get_user_details", {"user_id": user.user_id})]
    reads += [
        ("get_flight_status", {"flight_number": f.flight_number, "date": f.date})
        for f in reservation.flights if flight_status(ctx.db, f.flight_number, f.date) == "delayed"
    ][:1]
    return [
        new_action(ctx, f"check_{i}", name, args)
        for i, (name, args) in enumerate(reads) if (name, tuple(sorted(args.items()))) not in have
    ]


# Granting compensation keeps the rest of the delay clause: the user asked, the delay and the eligibility
# were read from the system, and the agent did not first say the certificate needs a change or cancellation.
GRANT_PRECONDITIONS = ["user_asked_compensation", "delay_confirmed", "membership_consistent"]


@rule("L3/L4")
def compensation_prerequisite(ctx: TaskContext) -> list[GoldVariant]:
    case = _delay_case(ctx)
    if case is None:
        return []
    user, reservation, amount = case
    certificates = [a for a in ctx.gold if a.name == "send_certificate"]
    if certificates:
        return [
            ctx.variant(
                "L3/L4", "strict",
                "The gold issues a delay certificate with no change or cancellation; the strict reading "
                "withholds it until one is completed, so declining (and saying why) is correct.",
                # With the reads the decline rests on (the delay found, the member read), where the gold lacks them.
                actions=[*(a for a in ctx.gold if a.name != "send_certificate"), *_checks(ctx, user, reservation)],
                reading_kind="refusal",
                evidence="declines_compensation",
                # The decline is the clause's only when the request is known and the delay was found.
                preconditions=["request_known", "delay_confirmed"],
            )
        ]
    if user.membership not in ELIGIBLE_TIERS and reservation.insurance != "yes":
        return []  # not eligible through membership or insurance (business-only eligibility is L5)
    return [
        ctx.variant(
            "L3/L4", "lenient",
            f"The gold withholds compensation; the lenient reading issues ${amount} "
            f"({PER_PASSENGER} x {len(reservation.passengers)} passengers on {reservation.reservation_id}) "
            "without a change or cancellation.",
            actions=[*ctx.gold, *_checks(ctx, user, reservation), _certificate(ctx, user.user_id, amount, "L34_certificate")],
            preconditions=[*GRANT_PRECONDITIONS, "no_prior_decline"],
            decline_subject="declines_compensation",
        )
    ]


@rule("L5")
def disjunctive_eligibility(ctx: TaskContext) -> list[GoldVariant]:
    case = _delay_case(ctx)
    if case is None or any(a.name == "send_certificate" for a in ctx.gold):
        return []
    user, reservation, amount = case
    eligible_only_by_cabin = (
        user.membership not in ELIGIBLE_TIERS and reservation.insurance != "yes" and reservation.cabin == "business"
    )
    if not eligible_only_by_cabin:
        return []
    return [
        ctx.variant(
            "L5", "business_disjunct",
            f"The user is a regular member without insurance but flies business on {reservation.reservation_id}; "
            f"checking every eligibility disjunct makes them eligible for ${amount}. The reservation may be "
            "kept, or changed or cancelled at the user's request (Appendix D: flights changed, then the certificate).",
            predicate=CertificatePredicate(
                user_id=user.user_id, amount=amount, reservation_id=reservation.reservation_id
            ),
            preconditions=[*GRANT_PRECONDITIONS, "changes_requested"],
        )
    ]
