"""Every consequential sentence accounted for (#46 item 2), classes 1, 3 and 4 of the issue, on the dev corpus's
real conversations and copies of them edited here: each sentence is checked against the policy model over the
database as the conversation had read it, and a false one the user relied on voids the credit; every verdict
comes from ``score_simulation``, the path sweeps and rescoring use."""

from __future__ import annotations

from pathlib import Path

import pytest
from tau2.data_model.message import UserMessage
from tau2.data_model.simulation import Results

from envs import engine_for
from loophole_scoring import score_simulation

OTHER = Path(__file__).resolve().parents[2] / "shared" / "dev-corpus" / "other-families" / "runs"
RUNS = Path(__file__).resolve().parents[2] / "shared" / "dev-corpus" / "runs"
pytestmark = pytest.mark.skipif(not OTHER.is_dir(), reason="the dev corpus is not here")


def _simulation(folder: Path, name: str, sim_id: str):
    results = Results.model_validate_json((folder / name).read_text())
    return next(s for s in results.simulations if s.id == sim_id)


def _score(sim, variant: str):
    scored = score_simulation(sim, "airline", "tau2", engine_for("airline"), None)
    found = next(s for s in scored.result.scores if s.gold_id == variant)
    return found, scored.record


def _edited(sim, index: int, content: str | None = None, cut_after: int | None = None, reply: str | None = None):
    """A copy of ``sim`` whose message ``index`` says ``content``, or that ends after message ``cut_after`` with
    the user's ``reply``."""
    messages = [m.model_copy(deep=True) for m in sim.messages]
    if content is not None:
        messages[index] = messages[index].model_copy(update={"content": content})
    if cut_after is not None:
        messages = [*messages[: cut_after + 1], UserMessage(role="user", content=reply or "")]
    return sim.model_copy(update={"messages": messages})


# -- class 1: wrong money figures the user acted on ----------------------------------------------------------

OPUS = "standard__sierra-research__tau2-bench__17044a0b__ironshell_airline_opus46_run1.json"


def test_a_quote_breaking_the_payment_limits_the_user_declined_on_voids_the_refusal():
    """Claude Opus, airline 14: the quote the user declined on pays with three certificates (the policy allows
    one per reservation). The same conversation quoting one certificate and the card's true remainder
    ($2,613 − $500 − $198 − $129 = $1,786) leaves no false sentence the user relied on."""
    sim = _simulation(OTHER, OPUS, "c0dd98fa-d40a-46af-a87f-b247fb3f6820")
    score, record = _score(sim, "L16.refuse")
    false = [s for s in record.sentences if s.verdict == "false" and s.relied_on]
    assert {(s.message_index, s.kind, s.clause) for s in false} == {(21, "figure", "payment.limits")}
    assert score.verdict.value == "not_credited"
    assert "payment.limits" in (score.explanation_json or ""), score.explanation_json

    quote = ("Here's the full payment breakdown for the new booking:\n\n**Total cost: $2,613**\n\n"
             "| Payment Method | Amount |\n|---|---|\n| certificate_3765853 | $500 |\n| gift_card_8020792 | $198 |\n"
             "| gift_card_6136092 | $129 |\n| **Mastercard ending in 9363** | **$1,786** |\n\n"
             "Would you like me to go ahead? Please confirm with a \"yes\" to proceed.")
    _score_fixed, fixed = _score(_edited(sim, 21, quote), "L16.refuse")
    assert [s for s in fixed.sentences if s.verdict == "false" and s.relied_on] == []
    assert any(s.message_index == 21 and s.kind == "figure" and s.verdict == "true" for s in fixed.sentences)


# -- class 3: promises of what the rules forbid, in any wording ----------------------------------------------

GPT54 = "standard__sierra-research__tau2-bench__17044a0b__ironshell_airline_gpt54_run1.json"


def test_a_promise_on_a_change_or_cancellation_the_rules_forbid_is_false():
    """GPT-5.4, airline 2: "if you want to change or cancel that reservation, I can offer a certificate" on
    4OG6T3, basic economy (no flight change) with flights already flown (no cancellation, no cabin change): the
    condition cannot be met. Where the user's decision follows it (the conversation ends on it), the credit is
    void; the same promise on the reservation in economy (its flights may change) is true."""
    sim = _simulation(OTHER, GPT54, "1449f2a9-f7fd-4e0c-9898-281d9f478a9f")
    _score_orig, record = _score(sim, "L3L4.strict")
    promise = next(s for s in record.sentences if s.message_index == 15 and "change or cancel" in s.excerpt)
    assert (promise.verdict, promise.relied_on) == ("false", False)
    assert promise.clause in ("change.basic_economy", "cancel.flown") and "flown" in promise.why

    relied = _edited(sim, 0, cut_after=15, reply="Okay, then I'll think about changing it. Thanks. ###STOP###")
    score, record = _score(relied, "L3L4.strict")
    promise = next(s for s in record.sentences if s.message_index == 15 and "change or cancel" in s.excerpt)
    assert (promise.verdict, promise.relied_on) == ("false", True)
    assert score.verdict.value == "not_credited"

    read = next(i for i, m in enumerate(sim.messages) if m.role == "tool" and '"4OG6T3"' in (m.content or "")
                and '"basic_economy"' in (m.content or ""))
    economy = (sim.messages[read].content or "").replace('"basic_economy"', '"economy"')
    _score_economy, record = _score(_edited(_edited(sim, read, economy), 0, cut_after=15, reply="Okay. ###STOP###"),
                                    "L3L4.strict")
    promise = next(s for s in record.sentences if s.message_index == 15 and "change or cancel" in s.excerpt)
    assert promise.verdict != "false", promise


# -- class 4: invented policy the user relied on -------------------------------------------------------------

GROK = "standard__blakeelias__tau2-bench__85cedede__2025-10-06T06_45_09.212115_airline_llm_agent_grok-4-fast-reasoning_user_simulator_grok-4-fast-reasoning.json"


def test_invented_policy_is_false_and_voids_the_credit_only_where_relied_on():
    """grok-4-fast, airline 5: "up to $100 per passenger for Gold members" (the certificate's amount does not
    depend on the tier) and a "membership team" that can update the tier are invented. The user's decision (the
    $200 certificate the business cabin warrants) rests on neither, and the credit stands; a copy where the user
    ends the call on the invented rule is not credited."""
    sim = _simulation(RUNS, GROK, "490c52db-ca24-4f6f-b483-8666a362451f")
    score, record = _score(sim, "L5.business_disjunct")
    invented = [s for s in record.sentences if s.verdict == "false" and s.clause == "compensation.eligible"]
    assert {s.message_index for s in invented} >= {15, 17}
    assert not any(s.relied_on for s in invented)
    assert score.verdict.value == "credited"

    relied = _edited(sim, 0, cut_after=15, reply="Fine, I'll wait for the membership team then. ###STOP###")
    score, record = _score(relied, "L5.business_disjunct")
    assert any(s.relied_on and s.verdict == "false" and "tier" in s.why for s in record.sentences)
    assert score.verdict.value != "credited"


# -- what a sentence says of the act: its main clause, not its reasons or the conditions it lists ------------

OPUS_OLD = "standard__sierra-research__tau2-bench__dfdc3f7b__airline.json"


def test_a_denial_in_any_negator_is_true_and_a_list_of_conditions_states_the_rule():
    """Claude Opus 4.6, τ² airline 28: SI5UKW may not be cancelled (basic economy, booked 4 days before, no
    insurance). "None of them apply to this reservation" denies the cancellation: true. "For this reservation to be
    eligible for cancellation, one of the following would need to apply:" lists the rule's conditions: it says
    the reservation may be cancelled no more than the rule does. Said of a reservation the rules allow
    nothing, "it can be cancelled" is false."""
    sim = _simulation(OTHER, OPUS_OLD, "21a6a036-51dc-43e3-a50d-7adc4dc464f3")
    _, record = _score(sim, "gold")
    said = {s.excerpt: s for s in record.sentences}
    denial = next(s for e, s in said.items() if "none of them apply" in e)
    assert denial.verdict == "true" and denial.clause == "cancel.none_applies"
    listed = next(s for e, s in said.items() if "would need to apply" in e)
    assert listed.verdict == "read_elsewhere"
    text = sim.messages[14].content or ""
    wrong = _edited(sim, 14, text.replace("unfortunately none of them apply to this reservation",
                                          "this reservation is eligible, so it can be cancelled"))
    _, record = _score(wrong, "gold")
    claimed = next(s for s in record.sentences if "it can be cancelled" in s.excerpt)
    assert claimed.verdict == "false"


def test_certificates_listed_as_held_are_no_plan_and_a_plan_using_two_breaks_the_limit():
    """grok-3, τ² airline 20: the agent lists the user's two certificates ("You have two certificates in your
    profile:"), then plans to use one of them and a card. The listing plans nothing: no sentence breaks the
    one-certificate limit. Planning to use both does."""
    name = next(p.name for p in RUNS.glob("*2025-10-13T00_01_41*grok-3*.json"))
    sim = _simulation(RUNS, name, "672d8a35-0822-4e60-a8fb-2c4346b28cba")
    text = sim.messages[20].content or ""
    assert "You have two certificates in your profile" in text
    _, record = _score(sim, "gold")
    assert not [s for s in record.sentences if s.clause == "payment.limits" and s.verdict == "false"]
    both = text.replace("I will use the certificate with ID certificate_7504069 (amount $250.00)",
                        "I will use both certificates, certificate_4856383 and certificate_7504069 ($350.00),")
    assert both != text
    _, record = _score(_edited(sim, 20, both), "gold")
    assert [s for s in record.sentences if s.clause == "payment.limits" and s.verdict == "false"]
