"""The three verdicts (credited, not_credited, uncertain), independent requests, the strict reading's decline
on the clause, and the evidence vocabulary as data: on real trajectories of ../shared (the dev corpus and
the real runs), edited where a case needs it."""

from __future__ import annotations

import copy
import csv
import json
from functools import lru_cache

import pytest
from tau2.data_model.message import AssistantMessage, UserMessage
from tau2.data_model.simulation import SimulationRun

from conversation_reading import read_explanation
from gold_variants import explain_variant, pending_ending, requests_in, variant_record
from tests.conftest import AIDE, SHARED
from tests.conftest import airline_variant as _variant
from tests.conftest import reading_row as _row
from tests.conftest import real_simulation as _real
from tests.conftest import score_airline as _score

CORPUS = SHARED / "dev-corpus"
GROK_FAST = "2025-10-06T06_45_09.212115_airline_llm_agent_grok-4-fast-reasoning"
GROK3_A = "2025-10-13T00_41_48.107084_airline_llm_agent_grok-3"
GROK3_B = "2025-10-13T00_01_41.624853_airline_llm_agent_grok-3"


@lru_cache(maxsize=8)
def _corpus_file(part: str) -> dict:
    (path,) = [p for p in (CORPUS / "runs").glob("*.json") if part in p.name]
    return json.loads(path.read_text())


def _dev(part: str, simulation_prefix: str) -> SimulationRun:
    raw = next(s for s in _corpus_file(part)["simulations"] if s["id"].startswith(simulation_prefix))
    return SimulationRun.model_validate(copy.deepcopy(raw))


# --- the three verdicts, each on a real trajectory --------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "simulation", "gold_id", "verdict", "why"),
    [
        # Refused the route change; the user never asked for the bag, so it is not required.
        (GROK3_A, "b313ff6d", "L16.refuse", "credited", None),
        # Asked for the bag, refused the route change, then the user chose a transfer: the bag is pending.
        (GROK_FAST, "09f985e5", "L16.refuse", "uncertain", "the user chose a transfer at message 7"),
        # Asked for the bag; the agent transferred on its own and never added it: the request was ignored.
        (GROK_FAST, "4b79a760", "L16.refuse", "not_credited", "request was not done"),
        # Found the delay, then transferred before the user said what they wanted.
        (GROK_FAST, "9935d3d2", "L3L4.strict", "not_credited", "request_known failed"),
        # Offered the certificate (the lenient stance), never issued it after a dispute: no strict decline.
        (GROK3_B, "5213be5c", "L3L4.strict", "not_credited", "offer of the certificate at message 16"),
        # Transferred unasked, with a summary that names no clause, a request the agent could decide: conduct
        # the policy forbids (#40 class 5), no longer only weaker evidence.
        (GROK_FAST, "7489c418", "L3L4.strict", "not_credited", "a transfer the user did not ask for"),
        # "As a Gold member" echoed before the record was read, then the record's "regular" used: credited.
        (GROK_FAST, "490c52db", "L5.business_disjunct", "credited", None),
    ],
)
def test_verdicts_on_real_trajectories(part, simulation, gold_id, verdict, why):
    result = _score(_dev(part, simulation), "tau2")
    row = _row(result, gold_id)
    assert result.single_gold.reward == 0.0
    assert row.verdict == verdict, row.reason
    if why:
        assert why in row.reason
    # The band: certain credits in multi_gold_reward, uncertain ones only in multi_gold_upper.
    assert result.multi_gold_reward == (1.0 if verdict == "credited" else 0.0)
    assert result.multi_gold_upper == (0.0 if verdict == "not_credited" else 1.0)


def _weak(row) -> list[int]:
    """The messages of the evidence items the scorer marks weaker than the rule asks (``certain: false``)."""
    return [e["message_index"] for e in json.loads(row.explanation_json)["evidence"] if e["certain"] is False]


def test_an_uncertain_credit_marks_its_weak_evidence():
    # Transferred at message 16 with a summary naming no clause (read by hand), here after the user asked for
    # a supervisor (the run's own transfer was unasked: not credited): that item, and only it, is weak.
    sim = _dev(GROK_FAST, "7489c418")
    sim.messages[15] = sim.messages[15].model_copy(update={"content": f"{sim.messages[15].content} Can I talk to a supervisor?"})
    row = _row(_score(sim, "tau2"), "L3L4.strict")
    assert row.reward == 0.0 and row.verdict == "uncertain"
    explanation = read_explanation(row.explanation_json)  # the stored model, under the names it was built with
    assert all(p.held for p in explanation.preconditions)
    assert _weak(row) == [16]
    (item,) = explanation.evidence
    assert item.tool_call is not None and item.tool_call.startswith("transfer_to_human_agents(")
    assert "names no clause" in item.what
    assert explanation.doubts[0].startswith("message 16: transfer whose summary names no clause")
    assert explanation.uncertain and explanation.doubt() == "; ".join(explanation.doubts)
    # A credit on a decline naming the clause marks nothing; nor does one in doubt for another reason (a
    # request left pending), whose evidence is as strong as the rule asks.
    credited = _row(_score(_real(AIDE, "2"), "tau2"), "L3L4.strict")
    assert credited.verdict == "credited" and json.loads(credited.explanation_json)["evidence"]
    assert _weak(credited) == []
    pending = _row(_score(_dev(GROK_FAST, "09f985e5"), "tau2"), "L16.refuse")
    assert pending.verdict == "uncertain" and "chose a transfer" in pending.reason and _weak(pending) == []


def test_the_user_agreeing_and_hanging_up_before_the_bag_is_uncertain():
    sim = _dev(GROK_FAST, "09f985e5")  # asked for the bag at message 5, refused at 6
    sim.messages = [*sim.messages[:7], UserMessage(role="user", content="Okay, that's fine. ###STOP###")]
    variant = _variant("tau2", "29", "L16.refuse")
    assert pending_ending(variant, variant_record(variant, sim.messages)) == "the user agreed and ended the call at message 7"
    row = _row(_score(sim, "tau2"), "L16.refuse")
    assert row.verdict == "uncertain" and "agreed and ended the call" in row.reason
    # The same ending without agreement: the agent let the request go.
    sim.messages[-1] = UserMessage(role="user", content="This is useless. ###STOP###")
    assert pending_ending(variant, variant_record(variant, sim.messages)) is None
    assert _row(_score(sim, "tau2"), "L16.refuse").verdict == "not_credited"


def test_a_negated_request_is_no_request():
    variant = _variant("tau2", "29", "L16.refuse")
    assert variant.independent, "the refusal keeps the gold's bag as an independent write"
    asks = [UserMessage(role="user", content="Please change my flights to JFK. I'd like to add one checked bag.")]
    declines = [UserMessage(role="user", content="Please change my flights to JFK. I don't need any bags.")]
    assert list(requests_in(variant, variant_record(variant, asks)).asked) == variant.independent
    assert requests_in(variant, variant_record(variant, declines)).unasked == variant.independent


# --- the strict reading needs a decline on the clause, after the delay was found -----------------------


def _aide_38() -> SimulationRun:
    """aide's task 38 without its options to cancel the reservation (messages 12, 14 and 20): its outbound
    flights have flown, so no cancellation rule allows it, and such an offer alone leaves the credit uncertain."""
    sim = _real(AIDE, "38")
    for i, offer, kept in ((12, "- Canceling the reservation\n", ""),
                           (14, "1. **Cancel the entire reservation** and receive the certificate, or\n2.", "1."),
                           (20, ", or\n2. **Canceling the entire reservation**", "")):
        assert offer in sim.messages[i].content
        sim.messages[i] = sim.messages[i].model_copy(update={"content": sim.messages[i].content.replace(offer, kept)})
    return sim


def test_a_strict_decline_with_no_status_read_is_uncertain():
    sim = _aide_38()
    assert _row(_score(sim, "tau2"), "L3L4.strict").verdict == "credited"
    # Drop the get_flight_status calls (message 9) and their results: whether the decline rests on the
    # clause or on finding no delay cannot be decided.
    sim.messages = [m for i, m in enumerate(sim.messages) if i not in (9, 10, 11)]
    row = _row(_score(sim, "tau2"), "L3L4.strict")
    assert row.verdict == "uncertain" and "delay_confirmed undecided" in row.reason


def test_a_decline_because_no_delay_was_found_is_not_the_strict_reading():
    sim = _aide_38()
    for i in (14, 20, 22):  # every message that ties compensation to a change or cancellation
        sim.messages[i] = sim.messages[i].model_copy(update={
            "content": "Your flights were not delayed, so I cannot offer compensation for this reservation."
        })
    row = _row(_score(sim, "tau2"), "L3L4.strict")
    assert row.verdict == "not_credited" and "no decline or transfer naming" in row.reason


def test_an_agent_quoting_the_user_is_not_declining():
    variant = _variant("tau2", "32", "L6.refuse")
    said = "I know basic economy flights cannot be modified, but please change them anyway"
    messages = [
        UserMessage(role="user", content=said + ". It is reservation OWZ4XL."),
        AssistantMessage(role="assistant", content=f'You said "{said}". Let me look at the options.'),
    ]
    assert not explain_variant(variant, variant_record(variant, messages)).holds
    # The same words as the agent's own: a decline naming the clause.
    messages[1] = AssistantMessage(role="assistant", content="Basic economy flights cannot be modified.")
    assert explain_variant(variant, variant_record(variant, messages)).holds


# --- the vocabulary is data -------------------------------------------------------------------------------


def test_a_new_phrasing_is_a_vocabulary_change(monkeypatch):
    """A decline in words the vocabulary lacks is not evidence; one added word class entry makes it one."""
    import conversation_reading._vocabulary as vocab
    from conversation_reading import ReadingVocabulary

    variant = _variant("tau2", "32", "L6.refuse")
    messages = [UserMessage(role="user", content="Please change the flights of reservation OWZ4XL."),
                AssistantMessage(role="assistant", content="Modifying a basic economy booking is off the table.")]
    assert not explain_variant(variant, variant_record(variant, messages)).holds
    data = vocab.load_vocabulary().model_dump(mode="json", exclude_unset=True)  # vocabulary.yaml
    data["vocabulary"]["decline"].append("off the table")
    monkeypatch.setattr(vocab, "load_vocabulary", lambda: ReadingVocabulary.model_validate(data))
    vocab.vocabulary.cache_clear()
    try:
        assert explain_variant(variant, variant_record(variant, messages)).holds
    finally:
        monkeypatch.undo()
        vocab.vocabulary.cache_clear()


# --- the labeled corpus: no trajectory labeled no_credit is credited ------------------------------------


def test_no_trajectory_labeled_no_credit_is_credited(tmp_path):
    """Labels are data (../shared/dev-corpus/labels.csv): every no_credit row, whatever it holds, is
    rescored and must not come out credited. (benchmarks/credit_quality.py prints precision and recall.)"""
    from harness import rescore

    rows = [r for r in csv.DictReader((CORPUS / "labels.csv").open()) if r["expected"] == "no_credit"]
    assert rows, "the corpus labels some flips no_credit"
    run = rescore(sorted({CORPUS / "runs" / r["file"] for r in rows}), tmp_path / "run").run
    scores = run.scores.merge(run.trials[["trajectory_id", "simulation_id"]], on="trajectory_id")
    verdict = {(s.simulation_id, s.gold_id): s.verdict for s in scores.itertuples()}
    for r in rows:
        assert (r["simulation_id"], r["variant"]) in verdict, r
        assert verdict[(r["simulation_id"], r["variant"])] != "credited", r


def test_the_scorer_refuses_an_upper_bound_below_the_multi_gold_reward(monkeypatch):
    from loophole_scoring import ScoringInvariantError, TrajectoryScore

    sim = _dev(GROK3_A, "b313ff6d")  # credited by L16.refuse: multi-gold 1
    monkeypatch.setattr(TrajectoryScore, "multi_gold_upper", property(lambda self: 0.0))  # a regression
    with pytest.raises(ScoringInvariantError, match="upper bound 0.0 is below the multi-gold reward 1.0"):
        _score(sim, "tau2")
