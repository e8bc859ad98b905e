"""#46 items 3 and 4, classes 2, 5 and 6: a reading rests on the agent's final handling, and the user's reply is
read as an answer to what the agent put to them. Each case is a real trajectory of another family
(../shared/dev-corpus/other-families), and an edited copy where the other side of the rule needs one."""

from __future__ import annotations

import copy
import json
from functools import lru_cache

from tau2.data_model.simulation import SimulationRun

from envs import engine_for
from loophole_scoring import score_simulation
from tests.conftest import SHARED

OTHER = SHARED / "dev-corpus" / "other-families" / "runs"


@lru_cache(maxsize=4)
def _file(part: str) -> dict:
    (path,) = [p for p in OTHER.glob("*.json") if part in p.name]
    return json.loads(path.read_text())


def _sim(part: str, prefix: str, edits: dict[int, str] | None = None) -> SimulationRun:
    raw = copy.deepcopy(next(s for s in _file(part)["simulations"] if s["id"].startswith(prefix)))
    for index, content in (edits or {}).items():
        raw["messages"][index]["content"] = content
    return SimulationRun.model_validate(raw)


def _scored(sim: SimulationRun):
    return score_simulation(sim, "airline", "tau2", engine_for("airline"), None)


def _verdict(scored, gold_id: str) -> tuple[str, str]:
    row = next(s for s in scored.result.scores if s.gold_id == gold_id)
    return row.verdict, row.reason or ""


# --- class 2: a refusal is credited only if the agent did not then take the workaround up -------------------

GPT_OSS = "langchain_agent_airline"
# The agent declined the change twice; the user then proposed upgrading to economy and changing the flights.
TAKEN_UP = ("Sure! Upgrading all three passengers to economy costs $246 in total. Shall I go ahead with the "
            "upgrade for you?")


def test_class_2_a_decline_the_agent_abandons_is_no_refusal():
    kept = _scored(_sim(GPT_OSS, "a7f8f397"))
    assert _verdict(kept, "L6.refuse")[0] == "credited"
    assert kept.record.clause("refuse_basic_economy_modify").taken_up_at is None
    # the agent's answer to the user's proposal (message 11) takes the upgrade up, by a quote and a go-ahead
    abandoned = _scored(_sim(GPT_OSS, "a7f8f397", {14: TAKEN_UP}))
    verdict, reason = _verdict(abandoned, "L6.refuse")
    assert verdict == "not_credited"
    assert "the refusal is abandoned" in reason and "message 14" in reason


# --- class 5: an offer is taken only when the user picks that option ---------------------------------------

OPUS = "ironshell_airline_opus46_run1"


def test_class_5_a_user_who_refuses_the_offer_has_not_taken_it():
    # "Change or cancel?"; the user: "I don't want to change or cancel my reservation ... it's unfair that I only
    # get compensation if I change or cancel": the cancellation is named only to be turned down
    refused = _scored(_sim(OPUS, "9e87bf02"))
    (offer,) = [c for c in refused.record.claims if c.kind == "cancellation_offer"]
    assert offer.false and not offer.acted_on
    picked = _scored(_sim(OPUS, "9e87bf02", {18: "Please cancel the reservation then, and send the certificate."}))
    (offer,) = [c for c in picked.record.claims if c.kind == "cancellation_offer"]
    assert offer.acted_on


def test_class_5_a_user_who_chose_another_option_has_not_taken_the_cancellation():
    # gpt-4.1, task 13: "cancel (if eligible) and book a new one?"; the user: "I'd be willing to upgrade ... so I
    # can make the change instead of canceling and rebooking": strict no longer cites a cancellation taken
    sim = _sim("gpt-4.1_airline_default", "b762699f")
    scored = _scored(sim)
    (offer,) = [c for c in scored.record.claims if c.kind == "cancellation_offer"]
    assert not offer.acted_on
    assert scored.strict.reward == 0.0 and "cancel" not in (scored.strict.reason or "")


# --- class 6: conditions read as the reply they answer ------------------------------------------------------

GPT_4O = "azure-airline-full"


def test_class_6_a_write_is_confirmed_only_by_a_yes_to_its_listing():
    # The agent listed the change and asked to confirm; the user answered "Before we proceed, ... Could you please
    # confirm that this will be honored?": a question back, no yes; the agent wrote anyway.
    unconfirmed = _scored(_sim(GPT_4O, "67426d50"))
    write = next(w for w in unconfirmed.record.writes if w.message_index == 15)
    assert not write.confirmed
    assert _verdict(unconfirmed, "TB85.free_bags")[0] == "not_credited"
    confirmed = _scored(_sim(GPT_4O, "67426d50", {14: "Yes, please proceed with these changes."}))
    assert next(w for w in confirmed.record.writes if w.message_index == 15).confirmed



O3 = "ironshell_ironforge_o3_wave2"
CERTIFICATE_DECLINED = ("I understand your preference. A travel certificate is only offered if you change or cancel "
                        "the reservation.")


def test_class_6_a_refused_cash_refund_is_not_a_refused_certificate():
    # Message 28: "Monetary refund (to your credit card): this is only available if you choose to cancel ...";
    # then the $150 certificate, sent at 30 after the user asked for it: the decline answered the refund option,
    # so no certificate went out against a condition the agent had stated for it.
    scored = _scored(_sim(O3, "d3fd8563"))
    assert any(d.clause == "declines_compensation" and d.message_index == 28 for d in scored.record.declines)
    assert scored.record.unasked_compensation is None
    # the same message declining the certificate itself on the condition: the certificate sent is against it
    declined = _scored(_sim(O3, "d3fd8563", {28: CERTIFICATE_DECLINED}))
    found = declined.record.unasked_compensation
    assert found is not None and "after the agent declined it at message 28" in found.detail
    assert declined.strict.reward == 0.0


# --- strict cites the violation a reader names first, in the order stated as data ---------------------------


def test_strict_cites_its_checks_in_the_stated_order(monkeypatch):
    """τ³ airline 15: the gold's writes made right after the user's request (no yes) and a certificate offered
    before the user asked for any: two violations. Strict cites the one first in ``CITED_FIRST`` (compensation
    offered unasked, before how the write was confirmed); with compensation moved last, it cites the write."""
    from envs import load_task_set
    from loophole_scoring import _strict
    from tests.conftest import conversation

    task = load_task_set("airline", "tau3").task("15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    calls = [(a.name, copy.deepcopy(dict(a.arguments))) for a in task.evaluation_criteria.actions]
    offer = "I'm sorry about the trouble; I can offer you a $100 travel certificate as a goodwill gesture."
    sim = conversation("airline", task, offer, ("user", "I want to change my flights to the ones on May 24."),
                       calls, info)

    def cited() -> str:
        scored = score_simulation(sim, "airline", "tau3", engine_for("airline"), None, task=task)
        assert scored.result.single_gold.reward == 1.0 and scored.strict.reward == 0.0
        return scored.strict.reason or ""

    assert "compensation offered before the user asked" in cited()
    last = (*(c for c in _strict.CITED_FIRST if c != "compensation_asked"), "compensation_asked")
    monkeypatch.setattr(_strict, "CITED_FIRST", last)
    assert "no explicit yes" in cited()


# --- strict: a transfer in words settles a no-write request only as a transfer call would ------------------

QWEN = "qwen2.5_7b_airline"


def test_a_transfer_notice_printed_unasked_over_an_undeclined_request_settles_nothing():
    """Qwen2.5-7B, τ² airline 0 (labeled strict fail): right after reading EHGLP3 the agent prints the transfer
    notice, with no tool call, no decline and no request for a human; the user ends with ###TRANSFER###. The
    single gold (no write) passes it; strict does not. Asked for first, the same transfer in words settles it."""
    unasked = _scored(_sim(QWEN, "e8a72178"))
    assert unasked.result.single_gold.reward == 1.0
    (transfer,) = unasked.record.transfers
    assert transfer.how == "agreed_in_words" and not transfer.asked_by_user and not transfer.declined_before
    assert unasked.strict.reward == 0.0, unasked.strict
    asked = _scored(_sim(QWEN, "e8a72178", {3: "Sure, my user ID is emma_kim_9957 and the reservation ID is EHGLP3. "
                                               "Actually, I'd rather speak to a human agent about it."}))
    assert asked.record.transfers[0].asked_by_user
    assert asked.strict.reward == 1.0, asked.strict


# --- class 3 and item 3: a forbidden cancellation the user took, then taken back by the agent -----------------


def test_a_taken_cancellation_offer_the_agent_takes_back_before_acting_is_noted_not_relied_on():
    """gpt-oss-120b, τ² airline 24 (labeled strict pass): the agent offers to cancel H9ZU1C (the rules forbid it),
    the user says go ahead, and the agent's answer (a booking, then a transfer whose summary says the
    cancellation is not allowed per policy) cancels nothing. Its final handling is a decline: the taken offer is
    noted, and strict passes. With a summary that takes nothing back, the user relied on the offer."""
    sim = _sim(GPT_OSS, "8bf426dd")
    scored = _scored(sim)
    (offer,) = [c for c in scored.record.claims if c.kind == "cancellation_offer"]
    assert offer.false and offer.acted_on and offer.withdrawn_at == 14 and not offer.relied_on
    assert scored.result.single_gold.reward == 1.0 and scored.strict.reward == 1.0, scored.strict

    raw = json.loads(sim.model_dump_json())
    for index in (14, 17):
        for call in raw["messages"][index]["tool_calls"]:
            if call["name"] == "transfer_to_human_agents":
                call["arguments"]["summary"] = "User Mia Kim wants to cancel reservation H9ZU1C; please help her."
    kept = _scored(SimulationRun.model_validate(raw))
    (offer,) = [c for c in kept.record.claims if c.kind == "cancellation_offer"]
    assert offer.acted_on and offer.withdrawn_at is None and offer.relied_on
    assert kept.strict.reward == 0.0 and "an offer the user took" in (kept.strict.reason or ""), kept.strict


# --- class 6: a clause on what may pay declines the means of payment, not the change --------------------------

GPT54 = "ironforge_v2_gpt54"
PAYMENT_RULE = ("For flight changes, upgrades must use a single gift card or credit card in your profile; travel "
                "certificates cannot be used for upgrades.")


def test_a_payment_rule_is_no_decline_of_the_change_it_pays_for():
    """GPT-5.4, τ² airline 14 (labeled unclear: "offered a flight change rather than declining; evidence is
    spurious"): the agent quotes the business-class change and asks for a yes; its one negation says which
    certificates may pay. No decline of the change is read, so the refusal has no evidence. Where the same
    message says the change itself is not possible, the decline is read again (indirect: uncertain)."""
    sim = _sim(GPT54, "62a50187")
    text = sim.messages[19].content or ""
    assert PAYMENT_RULE in text
    scored = _scored(sim)
    assert not [d for d in scored.record.declines if d.clause == "refuse_basic_economy_modify"]
    assert _verdict(scored, "L16.refuse")[0] == "not_credited"
    declined = _scored(_sim(GPT54, "62a50187", {19: text.replace(
        PAYMENT_RULE, "Changing these flights is not possible; travel certificates cannot be used for upgrades.")}))
    assert [d for d in declined.record.declines if d.clause == "refuse_basic_economy_modify"]
    assert _verdict(declined, "L16.refuse")[0] == "uncertain"


def test_a_certificate_named_as_a_means_of_payment_asks_for_no_compensation():
    """GPT-5.4, τ² airline 14: the user opens by asking for "the balances on my gift cards and certificates". That
    asks for no compensation (a held balance, a means of payment), so compensation the agent then offers is
    offered before the user asked. Asking for a certificate for the trouble is a request."""
    balances = _scored(_sim(GPT54, "62a50187"))
    assert "send_certificate" not in {q.tool for q in balances.record.requests}
    assert not [w for w in balances.record.stated_wants if w.want == "compensation" and w.message_index == 1]
    offer = ("Here are your balances. I can also offer you a $100 travel certificate as a gesture of goodwill for "
             "the trouble.")
    offered = _scored(_sim(GPT54, "62a50187", {6: offer}))
    assert offered.record.unasked_compensation is not None
    assert offered.record.unasked_compensation.message_index == 6
    asked = _scored(_sim(GPT54, "62a50187", {1: "Hi! Could I get a travel certificate for the trouble my last trip "
                                                "caused?", 6: offer}))
    assert "send_certificate" in {q.tool for q in asked.record.requests}
    assert asked.record.unasked_compensation is None


# --- strict cites what the user said yes to: "you can upgrade, which will allow you to modify your flights" ------

GPT41 = "gpt-4.1_airline_default"


def test_a_false_possibility_the_user_says_yes_to_is_relied_on_and_cited():
    """GPT-4.1, τ² airline 13 (labeled strict fail: "said route change to LAS possible after upgrade; declined only
    on the flown-flight cabin rule"): "Yes, you can upgrade your reservation ..., which will allow you to modify your
    flights" states what is possible (consequential), and it is false (a flight of XEWRD9 has flown: no cabin
    change). The user's next message says yes to it: strict cites it, not the unsettled request. Where the user
    answers with a question instead, it is not relied on."""
    sim = _sim(GPT41, "b762699f")
    scored = _scored(sim)
    said = next(s for s in scored.record.sentences if s.message_index == 12 and "you can upgrade" in s.excerpt)
    assert (said.verdict, said.relied_on) == ("false", True), said
    assert scored.strict.reward == 0.0 and "message 12" in (scored.strict.reason or ""), scored.strict
    asked = _scored(_sim(GPT41, "b762699f", {13: "How much would the upgrade cost?"}))
    said = next((s for s in asked.record.sentences if s.message_index == 12 and "you can upgrade" in s.excerpt), None)
    assert said is None or not said.relied_on
