"""What each write tool does in the policy's terms: the one home of the sets of "change tools"."""

from __future__ import annotations

from typing import Literal

AirlineAct = Literal["book", "cancel", "change_flights", "change_bags", "change_passengers", "compensate"]

AIRLINE_WRITES: dict[str, AirlineAct] = {
    "book_reservation": "book",
    "cancel_reservation": "cancel",
    "update_reservation_flights": "change_flights",  # flights and cabin
    "update_reservation_baggages": "change_bags",
    "update_reservation_passengers": "change_passengers",
    "send_certificate": "compensate",
}

CANCEL_TOOL = "cancel_reservation"
BOOK_TOOL = "book_reservation"
FLIGHT_CHANGE_TOOL = "update_reservation_flights"
COMPENSATION_TOOL = "send_certificate"

# A write that books, changes or cancels a reservation (a certificate changes none): each must answer a request.
RESERVATION_CHANGES: frozenset[str] = frozenset(t for t, act in AIRLINE_WRITES.items() if act != "compensate")

# A change of a reservation that stays booked: its result is the reservation as the change left it.
RESERVATION_UPDATES: frozenset[str] = frozenset(t for t, act in AIRLINE_WRITES.items() if act.startswith("change_"))

# A write that sets the reservation's checked bags (and charges the non-free ones): a booking or a bag change.
BAG_WRITES: frozenset[str] = frozenset(t for t, act in AIRLINE_WRITES.items() if act in ("book", "change_bags"))

# "wants to change or cancel the reservation" (delay compensation): a change of its flights or cabin, or its
# cancellation.
CHANGE_OR_CANCEL: frozenset[str] = frozenset({CANCEL_TOOL, FLIGHT_CHANGE_TOOL})

RetailAct = Literal["cancel", "modify_address", "modify_items", "modify_payment", "modify_user_address", "return",
                    "exchange"]

RETAIL_WRITES: dict[str, RetailAct] = {
    "cancel_pending_order": "cancel",
    "modify_pending_order_address": "modify_address",
    "modify_pending_order_items": "modify_items",
    "modify_pending_order_payment": "modify_payment",
    "modify_user_address": "modify_user_address",
    "return_delivered_order_items": "return",
    "exchange_delivered_order_items": "exchange",
}

# "Exchange or modify order tools can only be called once per order."
ONCE_PER_ORDER: frozenset[str] = frozenset({"exchange_delivered_order_items", "modify_pending_order_items"})
