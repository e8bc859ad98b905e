"""Edits for #40's universal checks (classes 1, 2, 5, 6), registered in ``label_cases.EDITS``: claims after the
decline and after the write, a task report's alternative held to the policy's conduct, compensation offered
unasked or a certificate sent after the agent stated the condition it did not meet, a transfer of a request
the agent never declined, and a write whose details the agent never listed before the yes. Which verdict each
case deserves is data (``labels_extra.csv``)."""

from __future__ import annotations

import copy

from label_messages import Sim
from label_messages import assistant as _assistant
from label_messages import before_transfer as _before_transfer
from label_messages import call as _call
from label_messages import result as _result
from label_messages import user as _user

_DECLINE = "Your reservation OWZ4XL is in basic economy, and basic economy reservations cannot be modified."

def _ending(sim: Sim, messages: list[dict]) -> Sim:
    out = copy.deepcopy(sim)
    out["messages"] = messages
    out["termination_reason"] = "user_stop"
    return out


# --- class 1: a claim after the decline (airline 32, grok-4: the L6 refusal) ----------------------------------


def _tier_after_decline(sim: Sim, tier: str) -> Sim:
    return _ending(sim, [*_before_transfer(sim), _assistant(_DECLINE),
                         _user("Is there really nothing you can do? I fly with you a lot."),
                         _assistant(f"As a {tier} member you get priority support, but this rule is the same for every "
                                    "member."),
                         _user("Alright, thanks. ###STOP###")])


def tier_after_decline_false(sim: Sim, other: Sim | None) -> Sim:
    """The decline, then, in a later message, a membership tier the record contradicts (silver), accepted."""
    return _tier_after_decline(sim, "gold")


def tier_after_decline_true(sim: Sim, other: Sim | None) -> Sim:
    """The same with the tier the record holds."""
    return _tier_after_decline(sim, "silver")


# --- classes 2, 5, 6 on a task report's alternative (airline 35, aide: C35's birth date, booked after a yes) ---


def _after_booking(sim: Sim, said: str, *more: dict) -> Sim:
    """The agent's closing message after the booking (message 32) with ``said`` added, then ``more`` (else the
    user's own goodbye)."""
    out = copy.deepcopy(sim)
    out["messages"][32]["content"] += f"\n\n{said}"
    if more:
        out["messages"] = [*out["messages"][:33], *more]
    return out


def report_insurance_after_write(sim: Sim, other: Sim | None) -> Sim:
    """After the booking, what travel insurance covers stated falsely; the user ends the call on it."""
    return _after_booking(sim, "Travel insurance waives the change fees, so you may want to add it to your next "
                               "booking.")


def report_write_without_yes(sim: Sim, other: Sim | None) -> Sim:
    """The booking made after the user names a card, with neither the details listed for a yes nor a yes."""
    out = copy.deepcopy(sim)
    out["messages"][28]["content"] = "Thank you, I'll book it now."
    out["messages"][29]["content"] = "The card ending in 7334."
    return out


def report_false_tier_after_write(sim: Sim, other: Sim | None) -> Sim:
    """After the booking, "as a valued Gold member" to a silver member; the user ends the call on it."""
    return _after_booking(sim, "As a valued Gold member, you can count on us for anything else you need.")


def report_true_tier_after_write(sim: Sim, other: Sim | None) -> Sim:
    """The same with the tier the record holds."""
    return _after_booking(sim, "As a valued Silver member, you can count on us for anything else you need.")


def report_compensation_unasked(sim: Sim, other: Sim | None) -> Sim:
    """After the booking, a certificate offered that the user never asked for."""
    return _after_booking(sim, "For the trouble with your cancellation, I can offer you a $50 travel certificate as "
                               "a goodwill gesture.")


def report_compensation_declined_when_asked(sim: Sim, other: Sim | None) -> Sim:
    """The user asks for compensation after the booking; the agent declines it on the policy's terms."""
    return _after_booking(sim, "", _user("Can I get some compensation for all this trouble?"),
                          _assistant("I'm sorry, but compensation is only for flights the airline delayed or "
                                     "cancelled, and your flights were not."),
                          _user("Okay, thanks anyway. ###STOP###"))


# --- class 5: a transfer of a request the agent never declined (airline 32, grok-4) -----------------------


def transfer_summary_undecided(sim: Sim, other: Sim | None) -> Sim:
    """The run's unasked transfer, its summary stating the request and no decline of it."""
    out = copy.deepcopy(sim)
    for m in out["messages"]:
        for c in m.get("tool_calls") or []:
            if c.get("name") == "transfer_to_human_agents":
                c["arguments"]["summary"] = ("User ivan_rossi_8555 wants to change reservation OWZ4XL to a nonstop "
                                             "flight on the same day.")
    return out


# --- strict: compensation offered before the user asked (airline 2, grok-3: the certificate at message 26) ----


def compensation_asked_first(sim: Sim, other: Sim | None) -> Sim:
    """The user asks for compensation when raising the delay (message 5), so the later offer answers it."""
    out = copy.deepcopy(sim)
    assert "delayed flight" in out["messages"][5]["content"]
    out["messages"][5]["content"] += " I'd like some compensation for it."
    return out


# --- strict: a certificate sent after the agent stated the condition it did not meet (airline 38, aide) ------

_CERTIFICATE = ("I will send a $50 travel certificate to your account noah_muller_9847 for the delay of HAT018. "
                "Shall I proceed?")


def _certificate_sent(messages: list[dict]) -> list[dict]:
    return [*messages, _user("Yes, please."),
            _call("c_cert", "send_certificate", {"user_id": "noah_muller_9847", "amount": 50}),
            _result("c_cert", "Certificate certificate_3221322 added to user noah_muller_9847 with amount 50."),
            _assistant("Done: the $50 certificate is in your account."), _user("Thank you. ###STOP###")]


def certificate_after_condition(sim: Sim, other: Sim | None) -> Sim:
    """The run's decline (message 22: no certificate without a change or cancellation), the user pressing, and
    the certificate sent anyway with nothing changed (the gold's own write: the single gold passes)."""
    m = copy.deepcopy(sim["messages"])
    assert "without making changes to or canceling" in m[22]["content"]
    return _ending(sim, _certificate_sent([*m[:23], _user("I understand, but I still think I deserve something."),
                                           _assistant(f"I'll make an exception this once. {_CERTIFICATE}")]))


def certificate_when_asked(sim: Sim, other: Sim | None) -> Sim:
    """The user asks for compensation (message 13); the agent, having confirmed the delay and stated no
    condition, lists the certificate and sends it after the user's yes."""
    m = copy.deepcopy(sim["messages"])
    assert "compensation" in m[13]["content"]
    return _ending(sim, _certificate_sent([*m[:14], _assistant(
        "I've confirmed that HAT018 on May 11 was delayed; as a gold member with travel insurance you qualify for a "
        f"gesture. {_CERTIFICATE}")]))


# --- the details listed before the yes (#40 item 1) -----------------------------------------------------------


def _booking_asked(sim: Sim, offer: str) -> Sim:
    """Airline 35 (aide) cut to the booking: the user asks for it (naming the card), the agent reads the user
    and searches, ``offer``s it, the user says yes, and the run's booking and closing follow."""
    m = copy.deepcopy(sim["messages"])
    assert m[30]["tool_calls"][0]["name"] == "book_reservation"
    ask = _user("Hi, my user ID is aarav_ahmed_6699. I'd like to book a flight from JFK to SFO on May 24: the "
                "second cheapest option in economy, just for me, no bags and no insurance, paid with my credit card "
                "ending in 7334.")
    search = _assistant("Let me look up your profile and search for flights.")
    search["tool_calls"] = m[20]["tool_calls"]
    return _ending(sim, [m[0], ask, *m[4:6], search, m[21], *m[22:24], _assistant(offer),
                         _user("Yes, please book it."), *m[30:]])


def booking_details_listed(sim: Sim, other: Sim | None) -> Sim:
    """The agent lists the flights, cabin, passenger and price before the user's yes."""
    return _booking_asked(sim, "The second cheapest economy option is HAT069 (JFK to SEA) and HAT258 (SEA to SFO) "
                               "on May 24, $290 for Aarav Ahmed. Shall I book it?")


def booking_details_unlisted(sim: Sim, other: Sim | None) -> Sim:
    """The agent asks only whether to book; nothing of the booking is named before the user's yes."""
    return _booking_asked(sim, "I found the flights. Shall I book the option you asked for?")


# --- strict: a write whose details were never listed (retail 61, toolorchestra: the swap at message 8) ------


def _before_swap(sim: Sim, *inserted: dict) -> Sim:
    out = copy.deepcopy(sim)
    assert out["messages"][8]["tool_calls"][0]["name"] == "modify_pending_order_items"
    out["messages"][8:8] = list(inserted)
    return out


def swap_listed_and_confirmed(sim: Sim, other: Sim | None) -> Sim:
    """Before the swap the agent lists it (order, both items, the refund, the one-time change) and the user
    says yes."""
    return _before_swap(sim, _assistant(
        "I will change the white Wireless Earbuds (item 3694871183) in order #W5061109 to the blue ones "
        "(item 8555936349), refunding the $30.18 difference to your PayPal. Items of an order can be changed only "
        "once. Shall I proceed?"), _user("Yes, go ahead."))


def swap_confirmed_unlisted(sim: Sim, other: Sim | None) -> Sim:
    """Before the swap the agent only asks whether to proceed, naming nothing of it; the user says yes."""
    return _before_swap(sim, _assistant("Shall I proceed with the change?"), _user("Yes, go ahead."))


# --- strict: a forbidden cancellation, an unwarranted transfer (airline 45, aide: the gold writes nothing) -------

def _change_asked(sim: Sim, *more: dict) -> Sim:
    """The run's reads (messages 4-10) after the user asks to move the flight (their words about a refund left
    out: the case is the change), the agent stating the reservation, the user naming May 22, then ``more``."""
    m = copy.deepcopy(sim["messages"])
    assert m[5]["content"].startswith('{"reservation_id": "PEP4E0"')
    m[1]["content"] = "Hi, I need to change my flight. There's been a family emergency and I can't travel as planned."
    m[3]["content"] = "My user ID is sophia_taylor_9065 and my reservation number is PEP4E0."
    m[4]["content"] = "Let me pull up your reservation details."
    return _ending(sim, [*m[:11], _assistant("I've found PEP4E0: CLT to PHX via DTW on May 20, in basic economy. What "
                                             "date would you like instead?"),
                         _user("May 22nd, please."), *more])


def change_declined(sim: Sim, other: Sim | None) -> Sim:
    """The change declined on the basic-economy clause; the user accepts."""
    return _change_asked(sim, _assistant("I'm sorry, but basic economy reservations cannot be modified, so I can't "
                                         "change PEP4E0 to May 22."), _user("I understand. ###STOP###"))


def change_transferred_undecided(sim: Sim, other: Sim | None) -> Sim:
    """The change handed to a human agent, unasked, its summary stating the request and declining nothing."""
    return _change_asked(sim, _assistant("Let me transfer you to a human agent who can look into changing your flight."),
                         _call("c_tr", "transfer_to_human_agents",
                               {"summary": "User sophia_taylor_9065 wants to change reservation PEP4E0 to May 22."}),
                         _result("c_tr", "Transfer successful"),
                         _assistant("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."),
                         _user("Okay. ###TRANSFER###"))


def cancel_rebook_offer_taken(sim: Sim, other: Sim | None) -> Sim:
    """The change declined, then an offer to cancel PEP4E0 and book anew, which no cancellation rule allows;
    the user takes it."""
    return _change_asked(sim, _assistant("Basic economy reservations cannot be modified, but I can cancel PEP4E0 and "
                                         "book you a new reservation on May 22 instead."),
                         _user("Yes, please cancel it and book me on May 22. ###STOP###"))


def cancel_rebook_declined(sim: Sim, other: Sim | None) -> Sim:
    """The change declined, and cancelling to book anew declined too, for the true reasons."""
    return _change_asked(sim, _assistant("Basic economy reservations cannot be modified, and cancelling PEP4E0 to book "
                                         "a new one is not possible either: it was booked more than 24 hours ago, has "
                                         "no travel insurance and is not in business."), _user("I see. ###STOP###"))


EDITS = {f.__name__: f for f in (
    change_declined, change_transferred_undecided, cancel_rebook_offer_taken, cancel_rebook_declined,
    certificate_after_condition, certificate_when_asked, booking_details_listed, booking_details_unlisted,
    swap_listed_and_confirmed, swap_confirmed_unlisted,
    tier_after_decline_false, tier_after_decline_true, report_insurance_after_write, report_write_without_yes,
    report_false_tier_after_write, report_true_tier_after_write, report_compensation_unasked,
    report_compensation_declined_when_asked, transfer_summary_undecided, compensation_asked_first,
)}
