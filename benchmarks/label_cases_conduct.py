"""Edits for #40's universal checks (classes 1, 2, 5, 6), registered in ``label_cases.EDITS``: claims after the
decline and after the write, a task report's alternative held to the policy's conduct, compensation offered
unasked and a transfer of a request the agent never declined. Which verdict each case deserves is data
(``labels_extra.csv``)."""

from __future__ import annotations

import copy

from label_messages import Sim
from label_messages import assistant as _assistant
from label_messages import before_transfer as _before_transfer
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


EDITS = {f.__name__: f for f in (
    tier_after_decline_false, tier_after_decline_true, report_insurance_after_write, report_write_without_yes,
    report_false_tier_after_write, report_true_tier_after_write, report_compensation_unasked,
    report_compensation_declined_when_asked, transfer_summary_undecided, compensation_asked_first,
)}
