"""Preconditions and clause-bound evidence: for every pattern, a conversation that must be credited and one
that must not, built where possible by editing real trajectories of ../shared/real-runs."""

from __future__ import annotations

import json

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import SimulationRun

from gold_variants import (
    ASK_COMPENSATION_TEXT,
    EVIDENCE_TEXT,
    UNIVERSAL_CHECKS,
    explain_variant,
    variant_record,
)
from loophole_scoring import ScoringInvariantError, TrajectoryScore
from tests.conftest import AIDE, WHISSLE
from tests.conftest import airline_variant as _variant
from tests.conftest import enacted as _trajectory
from tests.conftest import reading_row as _row
from tests.conftest import real_simulation as _real
from tests.conftest import score_airline as _score

# the conduct every non-gold credit keeps (#40), as each kind applies it
UNIVERSAL = [c for c, why_not in UNIVERSAL_CHECKS["action_reading"].items() if why_not is None]
UNIVERSAL_REFUSAL = [c for c, why_not in UNIVERSAL_CHECKS["refusal"].items() if why_not is None]


def _say(sim: SimulationRun, index: int, text: str) -> SimulationRun:
    sim.messages[index] = sim.messages[index].model_copy(update={"content": text})
    return sim


def _transfer(summary: str) -> list:
    call = ToolCall(
        id="call_transfer", name="transfer_to_human_agents", arguments={"summary": summary}
    )
    return [
        AssistantMessage(role="assistant", content=None, tool_calls=[call]),
        ToolMessage(
            id="call_transfer", role="tool", content="Transfer successful", requestor="assistant"
        ),
    ]


# --- L3/L4 strict: a decline naming the change-or-cancel condition --------------------------------------


@pytest.mark.parametrize(("task_id", "offered"), [("2", False), ("27", True), ("38", True)])
def test_aide_strict_declines_keep_their_evidence(task_id, offered):
    """Each decline is evidence of the strict reading. In 27 and 38 the agent also lists cancelling the
    reservation as an option where a flight has already flown (no cancellation rule allows it): an offer the
    user never took is noted beside the credit, not fatal and no doubt (#46 class 5; CONVENTIONS rules 3-4)."""
    sim = _real(AIDE, task_id)
    result = _score(sim, "tau2")
    row = _row(result, "L3L4.strict")
    assert result.single_gold.reward == 0.0 and row.verdict == "credited", row.reason
    claims = json.loads(row.explanation_json)["false_claims"]
    assert {c["kind"] for c in claims} == ({"cancellation_offer"} if offered else set())
    # 38's user answers message 14's offer with "Wait, there should be 3 passengers ... I'm sure of it": a
    # certainty, not agreement, so the offer was not taken
    assert not any(c["acted_on"] for c in claims)
    evidence = json.loads(row.explanation_json)["evidence"]
    declines = [e for e in evidence if e["what"].startswith(("declines", "transfer"))]
    assert declines
    for e in declines:  # each item points at the message it quotes
        source = sim.messages[e["message_index"]]
        quoted = e["excerpt"].rstrip("…")[:60]
        assert quoted in " ".join((source.content or "").split()) or quoted in str(
            source.tool_calls
        )


def test_a_decline_that_does_not_name_the_condition_is_no_evidence():
    sim = _real(AIDE, "38")
    for i in (14, 20, 22):  # the three messages that tie compensation to a change or cancellation
        _say(
            sim,
            i,
            "I'm sorry, I am unable to adjust the price, and I cannot find that reservation.",
        )
    row = _row(_score(sim, "tau2"), "L3L4.strict")
    assert (
        row.reward == 0.0
        and "no decline or transfer naming the change-or-cancel condition" in row.reason
    )


# --- L3/L4 lenient: the user asked, the delay and the membership were read -----------------------------


def _whissle_2_asking() -> SimulationRun:
    sim = _real(WHISSLE, "2")
    return _say(sim, 15, sim.messages[15].content + " " + ASK_COMPENSATION_TEXT)


def test_compensation_offered_before_the_user_asked_is_not_credited():
    result = _score(_real(WHISSLE, "2"), "tau3")
    row = _row(result, "L3L4.lenient")
    assert row.db_match and row.reward == 0.0 and "user_asked_compensation failed" in row.reason
    assert result.multi_gold_reward == 0.0


def test_compensation_the_user_asked_for_is_credited():
    result = _score(_whissle_2_asking(), "tau3")
    assert result.single_gold.reward == 0.0 and "L3L4.lenient" in result.crediting_readings()
    held = {
        p["name"]: p["held"]
        for p in json.loads(_row(result, "L3L4.lenient").explanation_json)["preconditions"]
    }
    assert held == dict.fromkeys(
        ["user_asked_compensation", "delay_confirmed", "membership_consistent", "no_prior_decline", *UNIVERSAL],
        True,
    )


def test_a_membership_claim_the_user_record_contradicts_is_not_credited():
    sim = _say(
        _whissle_2_asking(),
        22,
        "Since you are a silver member and your flight was delayed, I can send $50.",
    )
    row = _row(_score(sim, "tau3"), "L3L4.lenient")
    assert (
        row.reward == 0.0
        and "membership_consistent failed" in row.reason
        and "'gold'" in row.reason
    )


def test_a_delay_never_confirmed_by_a_read_is_not_credited():
    sim = _whissle_2_asking()
    variant = _variant("tau3", "2", "L3L4.lenient")
    assert explain_variant(variant, variant_record(variant, sim.messages)).holds
    # The status read no longer says "delayed" (explain only: the replay would differ).
    _say(sim, 21, "on time")
    failed = [p.name for p in explain_variant(variant, variant_record(variant, sim.messages)).preconditions if not p.held]
    assert failed == ["delay_confirmed"]


# --- self-contradiction (the written rule), on whissle tau3 task 29 ------------------------------------


def test_an_agent_that_says_the_route_cannot_change_then_changes_it_took_no_reading():
    result = _score(_real(WHISSLE, "29"), "tau3")
    assert "no_prior_decline failed" in _row(result, "L16.modify_in_place").reason
    assert _row(result, "L16.refuse").reward == 0.0 and result.multi_gold_reward == 0.0


def test_the_same_change_without_the_prior_decline_is_credited_in_place():
    sim = _real(WHISSLE, "29")
    _say(
        sim,
        8,
        sim.messages[8].content.replace(
            "Please note that you cannot change the origin, destination, or trip type.", ""
        ),
    )
    # and the refund quoted right: "$404 ($686 - $282)" counts the insurance as fare; the fare difference tau2
    # refunds is $374, and a false refund the user relied on voids the credit (#46 class 1)
    _say(sim, 16, sim.messages[16].content.replace("$404 ($686 - $282)", "$374"))
    result = _score(sim, "tau3")
    assert result.single_gold.reward == 0.0 and "L16.modify_in_place" in result.crediting_readings()


# --- L6 refusal: names basic economy + modifying flights, no workaround offered, no false policy -------


# aide's message 11 offers, beside the decline, to cancel OWZ4XL and book anew "since you're a silver member".
_AIDE_32_OFFER = (
    "1. **Cancel this reservation and book a new one** - Normally basic economy is non-refundable, but since "
    "you're a silver member and this involves a family emergency, you may be eligible for special consideration.\n\n"
)


def _aide_32_refusing(summary: str, upto: int = 12, offer: bool = True) -> SimulationRun:
    """aide's task 32 up to its decline ("basic economy reservations cannot be modified", message 11), then a
    transfer; ``offer=False`` leaves out message 11's offer to cancel and book anew."""
    sim = _real(AIDE, "32")
    sim.messages = sim.messages[:upto] + _transfer(summary)
    if not offer and upto > 11:
        assert _AIDE_32_OFFER in sim.messages[11].content
        _say(sim, 11, sim.messages[11].content.replace(_AIDE_32_OFFER, ""))
    return sim


def test_a_transfer_naming_the_basic_economy_rule_is_a_refusal():
    result = _score(
        _aide_32_refusing("Basic economy flights cannot be modified according to policy.", offer=False), "tau2"
    )
    assert result.single_gold.reward == 0.0 and "L6.refuse" in result.crediting_readings()


def test_aide_32s_offer_to_cancel_and_book_anew_is_noted_and_voids_the_refusal_only_when_taken():
    """OWZ4XL was booked on 2024-05-09 (six days before the policy's current time), in basic economy, without
    insurance, and neither flight was cancelled by the airline: no cancellation rule allows it, so message
    11's offer routes around the refusal through a cancellation the policy forbids. The user never takes it
    (the transfer follows): noted, the credit stands. Taking it ("please cancel it and book the nonstop"): not
    credited."""
    summary = "Basic economy flights cannot be modified according to policy."
    row = _row(_score(_aide_32_refusing(summary), "tau2"), "L6.refuse")
    assert row.verdict == "credited", row.reason
    (claim,) = json.loads(row.explanation_json)["false_claims"]
    assert all(fact in claim["truth"] for fact in ("2024-05-09T13:43:03", "basic_economy", "no travel insurance"))
    assert (claim["kind"], claim["message_index"], claim["acted_on"]) == ("cancellation_offer", 11, False)
    taken = _aide_32_refusing(summary)
    taken.messages[12:12] = [UserMessage(role="user", content="Yes, please cancel it and book the nonstop for us."),
                             AssistantMessage(role="assistant", content="Let me transfer you to a colleague.")]
    row = _row(_score(taken, "tau2"), "L6.refuse")
    assert row.verdict == "not_credited" and "claims_true failed" in row.reason


@pytest.mark.parametrize(
    ("summary", "upto", "why"),
    [
        ("User disputes the price of the change and asks for a supervisor.", 12, None),
        # A transfer that names no clause is weaker evidence than a decline, and unasked, of a request the agent
        # never declined, conduct the policy forbids (#40 class 5): not credited. (After the reservation reads: a
        # conversation that never touched OWZ4XL is not grounded at all.)
        ("Could not find the reservation.", 11, "a transfer the user did not ask for"),
        (
            "Basic economy flights cannot be modified according to policy.",
            17,
            "offer of the upgrade workaround",
        ),
    ],
    ids=["price-dispute-after-decline", "not-the-clause", "after-offering-the-workaround"],
)
def test_transfers_that_are_not_the_refusal_are_not_credited(summary, upto, why):
    row = _row(_score(_aide_32_refusing(summary, upto, offer=False), "tau2"), "L6.refuse")
    # A price-dispute transfer after a decline naming the clause (message 11) is credited on that
    # decline alone, not on the transfer.
    if why is None:
        assert row.reward == 1.0
        assert all(e["message_index"] == 11 for e in json.loads(row.explanation_json)["evidence"])
    else:
        assert row.reward == 0.0 and why in row.reason


def test_a_decline_resting_on_a_false_statement_of_policy_is_not_credited():
    sim = _aide_32_refusing("Basic economy flights cannot be modified according to policy.")
    _say(
        sim,
        11,
        "Cabin upgrades are not allowed for basic economy, and basic economy flights cannot be modified.",
    )
    row = _row(_score(sim, "tau2"), "L6.refuse")
    assert row.reward == 0.0 and "no_false_policy failed" in row.reason


# --- composition with the gold's independent writes, and a variant's own communicate_info -------------


def test_a_route_refusal_must_still_add_the_bag_the_user_asked_for():
    calls = [("get_reservation_details", {"reservation_id": "VA5SGQ"})]
    bag = (
        "update_reservation_baggages",
        {
            "reservation_id": "VA5SGQ",
            "total_baggages": 1,
            "nonfree_baggages": 0,
            "payment_id": "credit_card_8003957",
        },
    )
    say = EVIDENCE_TEXT["refuse_route_change"]
    asks = "I want to fly into JFK instead of LGA, and I'd like to add one checked bag."
    with_bag = _score(_trajectory("airline", "29", [*calls, bag], say, "tau3", opening=asks), "tau3")
    without = _score(_trajectory("airline", "29", calls, say, "tau3", opening=asks), "tau3")
    assert "L16.refuse" in with_bag.crediting_readings()
    assert "L16.refuse" not in without.matched_gold_ids
    # The agent ended the conversation itself (no transfer the user chose): the request was ignored.
    assert _row(without, "L16.refuse").verdict == "not_credited"
    assert "request was not done" in _row(without, "L16.refuse").reason
    # Never asked: not required, and a bag the user never asked for is no longer the variant's outcome.
    unasked = "I want to fly into JFK instead of LGA."
    assert "L16.refuse" in _score(_trajectory("airline", "29", calls, say, "tau3", opening=unasked), "tau3").crediting_readings()
    assert "L16.refuse" not in _score(
        _trajectory("airline", "29", [*calls, bag], say, "tau3", opening=unasked), "tau3"
    ).matched_gold_ids


@pytest.mark.parametrize(("told", "credited"), [(["327", "1000"], True), (["1000"], False)])
def test_a_refusal_on_task_14_tells_the_balances_but_not_the_refused_charge(told, credited):
    sim = _trajectory(
        "airline", "14", [("get_reservation_details", {"reservation_id": "K1NW8N"})],
        EVIDENCE_TEXT["refuse_basic_economy_modify"], "tau2", told=told
    )
    assert ("L16.refuse" in _score(sim, "tau2").matched_gold_ids) is credited


# --- L5: the outcome predicate of Appendix D ------------------------------------------------------------


_L5_READS = [
    ("get_user_details", {"user_id": "mei_brown_7075"}),
    ("get_reservation_details", {"reservation_id": "3JA7XV"}),
    ("get_flight_status", {"flight_number": "HAT045", "date": "2024-05-15"}),
]
_L5_CANCEL_AND_PAY = [
    ("cancel_reservation", {"reservation_id": "3JA7XV"}),
    ("send_certificate", {"user_id": "mei_brown_7075", "amount": 200}),
]


@pytest.mark.parametrize(
    ("opening", "credited"),
    [
        (
            f"My flight HAT045 was delayed; please cancel my reservation. {ASK_COMPENSATION_TEXT}",
            True,
        ),
        (f"My flight HAT045 was delayed. {ASK_COMPENSATION_TEXT}", False),  # cancelled unasked
    ],
    ids=["cancel-asked", "cancel-unasked"],
)
def test_l5_certificate_after_a_cancellation_the_user_asked_for(opening, credited):
    sim = _trajectory(
        "airline", "5", [*_L5_READS, *_L5_CANCEL_AND_PAY], version="tau2", opening=opening
    )
    result = _score(sim, "tau2")
    assert result.single_gold.reward == 0.0
    assert ("L5.business_disjunct" in result.matched_gold_ids) is credited


def test_l5_on_a_false_gold_claim_is_not_credited():
    sim = _trajectory(
        "airline",
        "5",
        [*_L5_READS, _L5_CANCEL_AND_PAY[1]],
        version="tau2",
        opening=f"My flight was delayed. {ASK_COMPENSATION_TEXT}",
    )
    assert "L5.business_disjunct" in _score(sim, "tau2").matched_gold_ids
    sim.messages.insert(
        -3, AssistantMessage(role="assistant", content="As a gold member you qualify for $200.")
    )
    row = _row(_score(sim, "tau2"), "L5.business_disjunct")
    assert row.reward == 0.0 and "membership_consistent failed" in row.reason
    # The same claim with no get_user_details read at all: a tier taken on the user's word.
    unread = [
        m for m in sim.messages if "mei_brown_7075" not in str(m) or "send_certificate" in str(m)
    ]
    variant = _variant("tau2", "5", "L5.business_disjunct")
    (membership,) = [
        p for p in explain_variant(variant, variant_record(variant, unread)).preconditions if p.name == "membership_consistent"
    ]
    assert not membership.held and "without reading get_user_details" in membership.detail


# --- the scorer's own invariant ----------------------------------------------------------------------


def test_the_scorer_refuses_a_multi_gold_reward_below_the_single_gold(monkeypatch):
    sim = _real(AIDE, "32")  # single gold 1
    assert _score(sim, "tau2").single_gold.reward == 1.0
    broken = property(lambda self: max(s.reward for s in self.scores if s.gold_id != "gold"))
    # A regression that drops the gold from the maximum.
    monkeypatch.setattr(TrajectoryScore, "multi_gold_reward", broken)
    with pytest.raises(ScoringInvariantError, match="below the single-gold reward"):
        _score(sim, "tau2")


def test_the_scorer_refuses_a_credit_whose_preconditions_failed(monkeypatch):
    from conversation_reading import Explanation

    # A regression in the gate that zeroes credits whose preconditions failed.
    monkeypatch.setattr(Explanation, "holds", property(lambda self: True))
    with pytest.raises(ScoringInvariantError, match="user_asked_compensation"):
        _score(_real(WHISSLE, "2"), "tau3")


def _read(name: str, args: dict, n: int) -> list:
    call = ToolCall(id=f"c{n}", name=name, arguments=args)
    return [AssistantMessage(role="assistant", content=None, tool_calls=[call]),
            ToolMessage(role="tool", id=f"c{n}", content="{}")]


def test_user_turns_are_not_evidence():
    """Only the agent declines: the user's own 'basic economy flights cannot be modified' proves nothing. The
    conversation is grounded (task 32's user and reservation read), so every precondition holds and only the
    speaker decides: the same sentence said by the agent is the refusal's evidence."""
    variant = _variant("tau2", "32", "L6.refuse")  # the gold reads user ivan_rossi_8555 and reservation OWZ4XL
    said = "I know basic economy flights cannot be modified."
    grounded = [UserMessage(role="user", content="I need to change the flights on reservation OWZ4XL."),
                *_read("get_user_details", {"user_id": "ivan_rossi_8555"}, 1),
                *_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, 2)]
    by_user = explain_variant(variant, variant_record(variant, [*grounded, UserMessage(role="user", content=said),
                                AssistantMessage(role="assistant", content="Let me see what I can do for you.")]))
    assert all(p.held for p in by_user.preconditions) and "grounded" in [p.name for p in by_user.preconditions]
    assert not by_user.holds and by_user.evidence == []
    assert by_user.problem == "no decline or transfer naming basic economy + modifying flights"
    by_agent = explain_variant(variant, variant_record(variant, [*grounded, AssistantMessage(role="assistant", content=said)]))
    assert by_agent.holds and [e.message_index for e in by_agent.evidence] == [5]


def test_offering_to_cancel_and_book_anew_is_no_l16_refusal():
    """aide's task 14 declines ("basic economy reservations cannot be modified"), then offers to cancel
    and book anew, which the user later turns down: the L16 refusal reading was not taken."""
    row = _row(_score(_real(AIDE, "14"), "tau2"), "L16.refuse")
    assert row.db_match and row.communicate == 1.0  # the refusal's own communicate_info (no "44")
    assert row.reward == 0.0 and "offer to cancel and book anew at message 10" in row.reason
    # "upgrade the cabin ..., but you cannot search for different flights" states the policy truly
    held = {p["name"]: p["held"] for p in json.loads(row.explanation_json)["preconditions"]}
    assert held == {"no_false_policy": True, "grounded": True, **dict.fromkeys(UNIVERSAL_REFUSAL, True)}


# --- grounding: a decline is grounded in the user's request, not only in records read (#40 class 3) ---------


def _complaint(said: str, decline: str) -> list:
    """Task 38's user states their complaint in ``said``; the agent reads the delayed flight's status (never
    the reservation, which nobody names) and declines in ``decline``."""
    call = ToolCall(id="s1", name="get_flight_status", arguments={"flight_number": "HAT018", "date": "2024-05-11"})
    return [
        UserMessage(role="user", content=f"My user ID is noah_muller_9847. {said}"),
        AssistantMessage(role="assistant", content=None, tool_calls=[call]),
        ToolMessage(role="tool", id="s1", content="delayed"),
        AssistantMessage(role="assistant", content=decline),
        UserMessage(role="user", content="Alright, I understand. ###STOP###"),
    ]


def test_a_decline_is_grounded_in_the_request_the_user_stated():
    from gold_variants._preconditions import _grounded

    strict = _variant("tau2", "38", "L3L4.strict")
    decline = "I'm sorry, compensation for a delay is only offered when you change or cancel the reservation."
    asked = _complaint("Flight HAT018 on May 11 was delayed; I want compensation, but I'm keeping my trip.", decline)
    held = _grounded(strict, variant_record(strict, asked), 3)
    assert held.held and "stated the request at message 0" in held.detail
    assert explain_variant(strict, variant_record(strict, asked)).holds
    # The same decline before the user asked for anything: no request grounds it, and no record was read.
    unasked = _complaint("Flight HAT018 on May 11 was delayed.", decline)
    assert not _grounded(strict, variant_record(strict, unasked), 3).held
    # A clause that turns on a record's facts (a basic-economy cabin) still needs the record read or named.
    change = [UserMessage(role="user", content="My user ID is ivan_rossi_8555; please change my flights."),
              AssistantMessage(role="assistant", content="Basic economy flights cannot be modified.")]
    refuse = _variant("tau2", "32", "L6.refuse")
    assert not _grounded(refuse, variant_record(refuse, change), 1).held


# --- L3/L4 strict refusal beside an offer of a cancellation the rules forbid ------------------------------

# aide's task 27: messages 25 and 27 list cancelling the reservation as an option (in 27, for a full refund and
# the certificate), though HAT223, the reservation's first flight, has already flown.
_AIDE_27_CANCEL = {
    25: "2. Cancel your reservation?\n",
    27: "**Option 2: Cancel your reservation**\n- Full refund to your original payment method (credit card ending "
        "in 8023) within 5-7 business days\n- After completing the cancellation, I can provide a travel certificate "
        "of **$150** ($50 × 3 passengers) as compensation\n\n",
}


def test_a_delay_decline_that_offers_a_forbidden_cancellation_voids_the_credit_only_when_taken():
    """The decline of delay compensation names the change-or-cancel condition (the strict reading), and lists
    cancelling the reservation as an option, which no cancellation rule allows once a flight has flown. The
    user never takes it (they ask for a transfer): noted beside the credit. Taking it: not credited. The same
    decline without the option: credited, with nothing noted."""
    offered = _real(AIDE, "27")
    assert all(said in offered.messages[i].content for i, said in _AIDE_27_CANCEL.items())
    row = _row(_score(offered, "tau2"), "L3L4.strict")
    assert row.verdict == "credited", row.reason
    claims = json.loads(row.explanation_json)["false_claims"]
    assert "HAT223 of M61CQM already flown" in claims[0]["truth"]
    assert [(c["kind"], c["message_index"], c["excerpt"], c["acted_on"]) for c in claims] == [
        ("cancellation_offer", 25, "2. Cancel your reservation?", False),
        ("cancellation_offer", 27, "Option 2: Cancel your reservation", False),
    ]

    taken = _real(AIDE, "27")
    taken.messages[28:] = [UserMessage(role="user", content="Fine, please cancel my reservation then."),
                           AssistantMessage(role="assistant", content="Let me transfer you to a colleague.")]
    row = _row(_score(taken, "tau2"), "L3L4.strict")
    assert row.verdict == "not_credited" and "claims_true failed" in row.reason, row.reason

    without = _real(AIDE, "27")
    for i, said in _AIDE_27_CANCEL.items():
        _say(without, i, without.messages[i].content.replace(said, ""))
    row = _row(_score(without, "tau2"), "L3L4.strict")
    assert row.verdict == "credited", row.reason
