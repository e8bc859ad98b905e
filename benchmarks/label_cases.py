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
from typing import Any

from loophole_base import atomic_write_text

Sim = dict[str, Any]


def _assistant(text: str) -> dict:
    return {"role": "assistant", "content": text, "tool_calls": None, "turn_idx": None}


def _user(text: str) -> dict:
    return {"role": "user", "content": text, "tool_calls": None, "turn_idx": None}


def _before_transfer(sim: Sim) -> list[dict]:
    """The conversation up to (not including) the agent's first transfer call."""
    out = []
    for m in sim["messages"]:
        if any(c.get("name") == "transfer_to_human_agents" for c in m.get("tool_calls") or []):
            break
        out.append(m)
    return out


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


EDITS: dict[str, Callable[[Sim, Sim | None], Sim]] = {
    f.__name__: f
    for f in (wrong_task_id, other_task_named_this_one, unicode_summary, wrapped_unrelated_summary,
              decline_in_words, question_not_decline, decline_without_the_record, false_tier_acted_on,
              true_tier_acted_on, cancel_offer_forbidden_taken, cancel_offer_forbidden_ignored,
              cancel_declined_too)
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
        case = {**{k: v for k, v in base.items() if k != "simulations"}, "simulations": [EDITS[row["edit"]](sim, other)]}
        path = out / row["file"]
        atomic_write_text(path, json.dumps(case))
        built[row["file"]] = path
    return built
