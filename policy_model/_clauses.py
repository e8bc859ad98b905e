"""The clauses of the policies the model applies: a short id and the policy's own words (``policy.md`` of
airline and retail, the same in τ², τ³ and Verified). Every verdict names one, so a reader of a result sees
which sentence of the policy decided it. ``tau2:`` ids are rules of tau2's tools, which the policy does not
state (a certificate cannot pay a change, the number of passengers must match)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Clause:
    id: str
    domain: str
    quote: str


def _clauses(domain: str, table: dict[str, str]) -> dict[str, Clause]:
    return {k: Clause(k, domain, q) for k, q in table.items()}


AIRLINE = _clauses("airline", {
    "now": "The current time is 2024-05-15 15:00:00 EST.",
    "cancel.flown": "If any portion of the flight has already been flown, the agent cannot help and transfer is needed.",
    "cancel.within_24h": "The booking was made within the last 24 hrs",
    "cancel.airline_cancelled": "The flight is cancelled by airline",
    "cancel.business": "It is a business flight",
    "cancel.insurance": "The user has travel insurance and the reason for cancellation is covered by insurance.",
    "cancel.none_applies": "Otherwise, flight can be cancelled if any of the following is true",
    "cancel.already_cancelled": "Cancel the whole reservation.",  # tau2's tool: nothing left to cancel
    "cancel.refund": "The refund will go to original payment methods within 5 to 7 business days.",
    "insurance.covers": "The travel insurance is 30 dollars per passenger and enables full refund if the user needs to "
                        "cancel the flight given health or weather reasons.",
    "insurance.no_add": "The user cannot add insurance after initial booking.",
    "change.basic_economy": "Basic economy flights cannot be modified.",
    "change.same_route": "Other reservations can be modified without changing the origin, destination, and trip type.",
    "change.kept_price": "Some flight segments can be kept, but their prices will not be updated based on the current price.",
    "change.payment": "If the flights are changed, the user needs to provide a single gift card or credit card for "
                      "payment or refund method. The payment method must already be in user profile for safety reasons.",
    "cabin.flown": "Cabin cannot be changed if any flight in the reservation has already been flown.",
    "cabin.any": "In other cases, all reservations, including basic economy, can change cabin without changing the flights.",
    "cabin.same": "Cabin class must remain the same across all the flights in the same reservation; changing cabin "
                  "for just one flight segment is not possible.",
    "cabin.difference": "If the price after cabin change is higher than the original price, the user is required to "
                        "pay for the difference.",
    "bags.add_only": "The user can add but not remove checked bags.",
    "bags.allowance": "Checked bag allowance: (by the booking user's membership level and the cabin)",
    "bags.extra_fee": "Each extra baggage is 50 dollars.",
    "passengers.count": "The user can modify passengers but cannot modify the number of passengers.",
    "passengers.max": "Each reservation can have at most five passengers.",
    "payment.limits": "Each reservation can use at most one travel certificate, at most one credit card, and at most "
                      "three gift cards.",
    "payment.on_file": "All payment methods must already be in user profile for safety reasons.",
    "payment.certificate_remainder": "The remaining amount of a travel certificate is not refundable.",
    "tau2:payment.no_certificate_update": "Certificate cannot be used to update reservation",  # tau2's tool
    "tau2:payment.gift_card_balance": "Gift card balance is not enough",  # tau2's tool
    "tau2:flight.available": "Flight not available on date",  # tau2's tool: only an available flight is sold
    "tau2:flight.seats": "Not enough seats on flight",  # tau2's tool
    "compensation.asked": "Do not proactively offer a compensation unless the user explicitly asks for one.",
    "compensation.eligible": "Only compensate if the user is a silver/gold member or has travel insurance or flies business.",
    "compensation.cancelled": "If the user complains about cancelled flights in a reservation, the agent can offer a "
                              "certificate as a gesture after confirming the facts, with the amount being $100 times "
                              "the number of passengers.",
    "compensation.delayed": "If the user complains about delayed flights in a reservation and wants to change or cancel "
                            "the reservation, the agent can offer a certificate as a gesture after confirming the facts "
                            "and changing or cancelling the reservation, with the amount being $50 times the number of "
                            "passengers.",
    "compensation.other": "Do not offer compensation for any other reason than the ones listed above.",
})

RETAIL = _clauses("retail", {
    "generic.status": "Generally, you can only take action on pending or delivered orders.",
    "generic.once": "Exchange or modify order tools can only be called once per order.",
    "cancel.pending": "An order can only be cancelled if its status is 'pending', and you should check its status "
                      "before taking the action.",
    "cancel.reason": "The user needs to confirm the order id and the reason (either 'no longer needed' or 'ordered by "
                     "mistake') for cancellation. Other reasons are not acceptable.",
    "cancel.refund": "the total will be refunded via the original payment method immediately if it is gift card, "
                     "otherwise in 5 to 7 business days.",
    "modify.pending": "An order can only be modified if its status is 'pending', and you should check its status "
                      "before taking the action.",
    "modify.items_once": "This action can only be called once, and will change the order status to 'pending (items "
                         "modifed)'. The agent will not be able to modify or cancel the order anymore.",
    "modify.same_product": "each item can be modified to an available new item of the same product but of different "
                           "product option. There cannot be any change of product types, e.g. modify shirt to shoe.",
    "modify.payment_single": "The user can only choose a single payment method different from the original payment method.",
    "modify.gift_card_covers": "If the user wants the modify the payment method to gift card, it must have enough "
                               "balance to cover the total amount.",
    "difference.payment": "The user must provide a payment method to pay or receive refund of the price difference. If "
                          "the user provides a gift card, it must have enough balance to cover the price difference.",
    "return.delivered": "An order can only be returned if its status is 'delivered', and you should check its status "
                        "before taking the action.",
    "return.refund_method": "The refund must either go to the original payment method, or an existing gift card.",
    "exchange.delivered": "An order can only be exchanged if its status is 'delivered', and you should check its status "
                          "before taking the action.",
    "exchange.same_product": "For a delivered order, each item can be exchanged to an available new item of the same "
                             "product but of different product option. There cannot be any change of product types, "
                             "e.g. modify shirt to shoe.",
})


def clause(domain: str, clause_id: str) -> Clause:
    """The clause ``clause_id`` of ``domain``'s policy (KeyError: no such clause)."""
    return {"airline": AIRLINE, "retail": RETAIL}[domain][clause_id]
