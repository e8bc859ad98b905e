"""Edited copies of shared runs for the extra labels (``labels_extra.csv``), built at run time (#36 item 5).

Each labels_extra.csv row names a case file, the shared run and simulation it is built from, and an edit (a
function here). The edits are code; which verdict each case deserves is data (the CSV). A case file is a
copy of the base run's header with one edited simulation, written to a temporary folder and rescored with
the corpus; nothing is written under ../shared or into the repository."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

from label_cases_conduct import (
    EDITS as CONDUCT_EDITS,  # #40's universal checks (classes 1, 2, 5, 6)
)
from label_messages import Sim
from label_messages import assistant as _assistant
from label_messages import before_transfer as _before_transfer
from label_messages import user as _user

from loophole_base import atomic_write_text


def _first_read(sim: Sim, name: str) -> int:
    return next(i for i, m in enumerate(sim["messages"]) if any(c.get("name") == name for c in m.get("tool_calls") or []))


def _ending(sim: Sim, messages: list[dict]) -> Sim:
    out = copy.deepcopy(sim)
    out["messages"] = messages
    out["termination_reason"] = "user_stop"
    return out


def wrong_task_id(sim: Sim, other: Sim | None) -> Sim:
    """The file names another task (the identity class): its recorded checks still name the right one."""
    out = copy.deepcopy(sim)
    out["task_id"] = other["task_id"] if other else "0"
    return out


def other_task_named_this_one(sim: Sim, other: Sim | None) -> Sim:
    """Another task's conversation whose file id names this simulation's task."""
    assert other is not None
    out = copy.deepcopy(other)
    out["task_id"] = sim["task_id"]
    return out


def _transfer_arguments(sim: Sim) -> list[dict]:
    """The arguments of every transfer in ``sim`` (to edit in place)."""
    return [c["arguments"] for m in sim["messages"] for c in m.get("tool_calls") or []
            if c.get("name") == "transfer_to_human_agents"]


def unicode_summary(sim: Sim, other: Sim | None) -> Sim:
    """The transfer summary as some agents write it: U+2011 hyphens, no-break spaces, curly apostrophes."""
    out = copy.deepcopy(sim)
    for args in _transfer_arguments(out):
        text = args["summary"].replace("basic economy", "basic\u2011economy")
        args["summary"] = text.replace(" cannot ", "\u00a0cannot\u00a0").replace("'", "\u2019")
    return out


def wrapped_unrelated_summary(sim: Sim, other: Sim | None) -> Sim:
    """A JSON-escaped summary whose literal \\n separates the request from an unrelated inability."""
    out = copy.deepcopy(sim)
    for args in _transfer_arguments(out):
        args["summary"] = (
            "User wants to change the basic economy reservation OWZ4XL to a nonstop flight.\\n"
            "The agent cannot see a seat map for the new flight."
        )
    return out


def decline_in_words(sim: Sim, other: Sim | None) -> Sim:
    """After the reads, the agent declines in its own words and the user ends the call."""
    return _ending(sim, [*_before_transfer(sim),
                         _assistant("I'm sorry, but basic economy reservations cannot be modified under our policy."),
                         _user("I understand. ###STOP###")])


def question_not_decline(sim: Sim, other: Sim | None) -> Sim:
    """After the reads, the agent only asks (a question that holds decline words), and the user ends the call."""
    return _ending(sim, [*_before_transfer(sim),
                         _assistant("Would you like me to look into modifying the basic economy reservation, "
                                    "or are you only looking for a refund?"),
                         _user("Never mind. ###STOP###")])


def decline_without_the_record(sim: Sim, other: Sim | None) -> Sim:
    """The same decline before the agent ever read the reservation the gold concerns."""
    cut = sim["messages"][: _first_read(sim, "get_reservation_details")]
    return _ending(sim, [*cut, _assistant("I'm sorry, but basic economy reservations cannot be modified under our "
                                          "policy."), _user("I understand. ###STOP###")])


def _tier_decline(sim: Sim, tier: str) -> Sim:
    return _ending(sim, [*_before_transfer(sim),
                         _assistant(f"As a {tier} member, you are still bound by the rule that basic economy "
                                    "reservations cannot be modified under our policy."),
                         _user("Alright, thanks. ###STOP###")])


def false_tier_acted_on(sim: Sim, other: Sim | None) -> Sim:
    """The decline rests on a membership tier the user record contradicts, and the user accepts it."""
    return _tier_decline(sim, "gold")


def true_tier_acted_on(sim: Sim, other: Sim | None) -> Sim:
    """The same with the tier the record holds."""
    return _tier_decline(sim, "silver")


_DECLINE = "Your reservation OWZ4XL is in basic economy, and basic economy reservations cannot be modified."
_OFFER = "I can cancel OWZ4XL and book you a new reservation on the nonstop instead."


def _offer_case(sim: Sim, said: str, reply: str) -> Sim:
    """After the reads, the agent declines and says ``said`` of cancelling and booking anew, and the user
    replies and ends the call. (A read edited to make the cancellation allowed would not replay: that case is
    tests/test_claims.py's, on hand-written reads.)"""
    return _ending(sim, [*_before_transfer(sim), _assistant(f"{_DECLINE} {said}"), _user(f"{reply} ###STOP###")])


def cancel_offer_forbidden_taken(sim: Sim, other: Sim | None) -> Sim:
    """The decline offers to cancel and book anew, which no cancellation rule allows (booked six days before,
    basic economy, no insurance, no flight cancelled); the user takes it."""
    return _offer_case(sim, _OFFER, "Yes, please cancel it and book us on the nonstop.")


def cancel_offer_forbidden_ignored(sim: Sim, other: Sim | None) -> Sim:
    """The same offer; the user does not take it."""
    return _offer_case(sim, _OFFER, "No, I don't want to cancel anything. I'll keep my flights then.")


def cancel_declined_too(sim: Sim, other: Sim | None) -> Sim:
    """The decline says cancelling and booking anew is not possible either, for the true reasons."""
    return _offer_case(sim, "Cancelling it and booking a new one is not possible either: it was booked more than "
                            "24 hours ago, has no travel insurance and is not in business.", "I see, thank you.")


# --- #40: reasoning text is no speech; a budget is no rule; a decline grounded in the user's request ------

_REASONING = ("The user wants to change basic economy reservation OWZ4XL to a nonstop flight. Basic economy "
              "reservations cannot be modified under our policy, so I should decline.")
_SPOKEN = "I'm sorry, but basic economy reservations cannot be modified under our policy."


def _reasoning_case(sim: Sim, said: str) -> Sim:
    return _ending(sim, [*_before_transfer(sim), _assistant(said), _user("Okay, thanks. ###STOP###")])


def reasoning_tagged_only(sim: Sim, other: Sim | None) -> Sim:
    """The decline exists only inside the model's <think> tags; what the user is told declines nothing."""
    return _reasoning_case(sim, f"<think>{_REASONING}</think>Let me check what else I can do for you.")


def reasoning_third_person_only(sim: Sim, other: Sim | None) -> Sim:
    """The same reasoning leaked untagged, about the user in the third person, before a reply that declines
    nothing."""
    return _reasoning_case(sim, f"{_REASONING}\n\nLet me check what else I can do for you.")


def reasoning_then_decline(sim: Sim, other: Sim | None) -> Sim:
    """The same leaked reasoning, then the decline said to the user."""
    return _reasoning_case(sim, f"<think>{_REASONING}</think>{_SPOKEN}")


def _budget_case(sim: Sim, said: str) -> Sim:
    return _ending(sim, [*_before_transfer(sim),
                         _assistant("I see your reservation OWZ4XL, one way from Newark to Los Angeles on May 21."),
                         _user("Could I at least upgrade it to business, if that costs no more than $200?"),
                         _assistant(f"{_SPOKEN} {said}"), _user("I understand. ###STOP###")])


def budget_not_rule(sim: Sim, other: Sim | None) -> Sim:
    """The decline, and the upgrade refused on the user's budget: business costs $1,059 more for the three
    passengers (221 + 306 per passenger against 522 paid), which is true, and no statement of the cabin rule."""
    return _budget_case(sim, "The business class upgrade isn't possible within your $200 budget: it would cost "
                             "$1,059 more for the three passengers.")


def budget_rule_misstated(sim: Sim, other: Sim | None) -> Sim:
    """The decline, and the upgrade refused on a false cabin rule (every reservation may change cabin)."""
    return _budget_case(sim, "Cabin upgrades are not possible for basic economy reservations either.")


def _flight_only(sim: Sim) -> list[dict]:
    """Task 38's opening with the user naming the delayed flight, the user read and the flights' status read,
    but never the reservation (its reads go, and nobody names it)."""
    m = copy.deepcopy(sim["messages"])
    said = _user("My user ID is noah_muller_9847. It was flight HAT018 from Seattle to Las Vegas on May 11.")
    status = _first_read(sim, "get_flight_status")
    return [*m[:3], said, *m[4:6], *m[status : status + 3],
            _assistant("I can confirm that flight HAT018 (Seattle to Las Vegas) on May 11, 2024 was delayed. I'm sorry "
                       "for the inconvenience. How can I help?")]


def request_grounds_decline(sim: Sim, other: Sim | None) -> Sim:
    """The user asks for compensation for the delayed flight and will not change or cancel; the agent declines
    on the change-or-cancel clause (the run's own last three turns), never reading or naming the reservation."""
    m = sim["messages"]
    ask = next(i for i, x in enumerate(m) if x["role"] == "user" and "compensation" in (x.get("content") or ""))
    clarify = max(i for i, x in enumerate(m) if x["role"] == "assistant" and "in connection with" in (x.get("content") or ""))
    offer = _assistant(m[clarify]["content"].replace("No problem, I understand! \n\n", "")
                       .replace(" with **travel insurance**", ""))  # nothing the unread reservation says
    return _ending(sim, [*_flight_only(sim), copy.deepcopy(m[ask]), offer, *copy.deepcopy(m[clarify + 1 :])])


def decline_before_any_request(sim: Sim, other: Sim | None) -> Sim:
    """The same opening; the agent declines compensation before the user asked for any, the records unread."""
    return _ending(sim, [*_flight_only(sim),
                         _user("It really messed up my plans."),
                         _assistant("I'm sorry, but compensation for a delay is only offered when you change or "
                                    "cancel your reservation."),
                         _user("Alright. ###STOP###")])


def _policy_claim_case(sim: Sim, said: str) -> Sim:
    return _ending(sim, [*_before_transfer(sim), _assistant(f"{_DECLINE} {said}"), _user("Okay, thanks. ###STOP###")])


def insurance_claim_false(sim: Sim, other: Sim | None) -> Sim:
    """The decline, then a false statement of what travel insurance covers, which the user accepts."""
    return _policy_claim_case(sim, "Travel insurance waives the change fees, so you may want to add it next time.")


def insurance_claim_true(sim: Sim, other: Sim | None) -> Sim:
    """The decline, then what travel insurance does cover, as the policy says it."""
    return _policy_claim_case(sim, "Travel insurance gives a full refund only when you cancel for health or "
                                   "weather reasons.")


def one_leg_upgrade_claim(sim: Sim, other: Sim | None) -> Sim:
    """The decline, then an offer to upgrade one leg only (every flight of a reservation has one cabin)."""
    return _policy_claim_case(sim, "I can upgrade just the first flight to business if you like.")
# -- strict (#40 classes 8-12 and the conduct rule): the label is whether the single-gold pass was earned ------


def as_recorded(sim: Sim, other: Sim | None) -> Sim:
    """The simulation as the shared run holds it."""
    return copy.deepcopy(sim)


def _replace_text(sim: Sim, old: str, new: str) -> Sim:
    out = copy.deepcopy(sim)
    hits = [m for m in out["messages"] if m["role"] == "assistant" and old in (m.get("content") or "")]
    assert hits, f"no assistant message of {sim['id']} says {old!r}"
    for m in hits:
        m["content"] = m["content"].replace(old, new)
    return out


def fact_inside_a_number(sim: Sim, other: Sim | None) -> Sim:
    """The amount paid stated wrongly, as a number holding the gold's fact (829.43 -> 1,829.43): tau2's
    substring check still finds it."""
    return _replace_text(sim, "829.43", "1,829.43")


def false_quote(sim: Sim, other: Sim | None) -> Sim:
    """The agent's quote (message 10) replaced by a total that no choice of the searched flights makes; the
    user still withdraws over the $222 difference."""
    out = copy.deepcopy(sim)
    out["messages"][10]["content"] = ("The total comes to $999 for HAT072 and HAT278 in business, a difference "
                                      "of $222 to pay. Shall I proceed?")
    return out


def _pending_order_reply(sim: Sim, said: str, reply: str) -> Sim:
    """Retail 57: the reads kept, the agent's texts replaced, then ``said`` and the user's ``reply``."""
    msgs = copy.deepcopy(sim["messages"][:10])
    msgs[4]["content"] = "I can help with that. First, please verify your account: your email, or your name and ZIP."
    return _ending(sim, [*msgs, _assistant(said), _user(f"{reply} ###STOP###")])


def decline_whole_order_only(sim: Sim, other: Sim | None) -> Sim:
    """The decline in other words: only the whole pending order can be cancelled."""
    return _pending_order_reply(sim, "Order #W4284542 is pending and has not shipped. We can only cancel an entire "
                                     "pending order, not individual items.", "Then keep the order as it is.")


def no_decline_left_open(sim: Sim, other: Sim | None) -> Sim:
    """The agent neither declines nor acts; the user leaves."""
    return _pending_order_reply(sim, "Order #W4284542 is pending and has not shipped. Let me know what you would "
                                     "like to do.", "I'll think about it.")


def _transfer_ending(sim: Sim, said: str, reply: str) -> Sim:
    """Airline 1: up to the user's reason for cancelling (message 19), then ``said`` and ``reply``."""
    return _ending(sim, [*copy.deepcopy(sim["messages"][:20]), _assistant(said), _user(reply)])


def transfer_agreed_in_words(sim: Sim, other: Sim | None) -> Sim:
    """The agent agrees to transfer; the user simulator ends with ###TRANSFER### before the tool call."""
    return _transfer_ending(sim, "I understand. Since a representative told you a service agent would handle "
                                 "this, I will transfer you to a human agent now.", "Thank you. ###TRANSFER###")


def transfer_never_agreed(sim: Sim, other: Sim | None) -> Sim:
    """The user asks for a supervisor and ends the call; the agent never agreed to transfer."""
    return _transfer_ending(sim, "Let me review the cancellation rules for this reservation.",
                            "I want to talk to a supervisor. ###TRANSFER###")


def write_left_out(sim: Sim, other: Sim | None) -> Sim:
    """The agent's flight change (its call and the tool's reply) taken out: the gold's write is not made."""
    out = copy.deepcopy(sim)
    ids = {c.get("id") for m in out["messages"] for c in m.get("tool_calls") or []
           if c.get("name") == "update_reservation_flights"}
    out["messages"] = [m for m in out["messages"]
                       if not any(c.get("id") in ids for c in m.get("tool_calls") or []) and m.get("id") not in ids]
    return out


def confirmation_inserted(sim: Sim, other: Sim | None) -> Sim:
    """Before the address change (message 26), the agent lists its details and the user says yes."""
    out = copy.deepcopy(sim)
    at = next(i for i, m in enumerate(out["messages"])
              if any(c.get("name") == "modify_pending_order_address" for c in m.get("tool_calls") or []))
    out["messages"][at:at] = [
        _assistant("I will change the shipping address of order #W4860251 to 921 Park Avenue, Suite 892, Chicago, "
                   "IL 60612, USA. Shall I proceed?"),
        _user("Yes, please update it."),
    ]
    return out


EDITS: dict[str, Callable[[Sim, Sim | None], Sim]] = {
    **CONDUCT_EDITS,
    **{f.__name__: f
    for f in (wrong_task_id, other_task_named_this_one, unicode_summary, wrapped_unrelated_summary,
              decline_in_words, question_not_decline, decline_without_the_record, false_tier_acted_on,
              true_tier_acted_on, cancel_offer_forbidden_taken, cancel_offer_forbidden_ignored,
              cancel_declined_too, reasoning_tagged_only, reasoning_third_person_only, reasoning_then_decline,
              budget_not_rule, budget_rule_misstated, request_grounds_decline, decline_before_any_request,
              insurance_claim_false, insurance_claim_true, one_leg_upgrade_claim, as_recorded,
              fact_inside_a_number, false_quote, decline_whole_order_only, no_decline_left_open,
              transfer_agreed_in_words, transfer_never_agreed, write_left_out, confirmation_inserted)},
}


def build(rows: list[dict[str, str]], shared: Path, out: Path) -> dict[str, Path]:
    """Write each case file named in ``rows`` (columns file, base_file, base_simulation, other_simulation,
    edit) under ``out``; returns case file name -> path."""
    out.mkdir(parents=True, exist_ok=True)
    built: dict[str, Path] = {}
    for row in rows:
        if row["file"] in built:
            continue
        if row["edit"] not in EDITS:
            raise SystemExit(f"error: labels_extra.csv: field 'edit': {row['edit']!r} is not one of {sorted(EDITS)}")
        base = json.loads((shared / row["base_file"]).read_text())
        sims = {s["id"]: s for s in base["simulations"]}
        sim = sims[row["base_simulation"]]
        other = sims.get(row.get("other_simulation") or "")
        # the header without its index of the base's simulations (the case holds one)
        header = {k: v for k, v in base.items() if k not in ("simulations", "simulation_index")}
        case = {**header, "simulations": [EDITS[row["edit"]](sim, other)]}
        path = out / row["file"]
        atomic_write_text(path, json.dumps(case))
        built[row["file"]] = path
    return built
