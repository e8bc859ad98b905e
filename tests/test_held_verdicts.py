"""The policy model's verdicts a consequential sentence asks (``_sentence_facts._Checker._verdict``, #47) answer as
before on real runs: a cancellation asked of the model once where ``_not_cancellable`` would read the same record
(its flights all records), the path it replaces."""

from __future__ import annotations

from functools import partial

import pytest

from conversation_reading._claims import _status
from conversation_reading._conversation_state import _State, _states
from conversation_reading._domain import domain_db
from conversation_reading._sentence_facts import _Checker, model_verdict
from policy_model import AirlinePolicy
from tests.conftest import read_conversations

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json"]
TOPICS = ("cancel", "cabin", "flights", "passengers")


def _reference(state: _State, topic: str, res: dict) -> tuple[str, str, str] | None:
    """``_Checker._verdict`` as it was: the model over ``_status``, ``_not_cancellable`` read first (``model_verdict``)."""
    return model_verdict(AirlinePolicy(domain_db("airline"), state.now, partial(_status, state)), state, topic, res)


def _verdicts(state: _State, shared: dict, records: list[dict]) -> tuple[int, set[str]]:
    checker = _Checker(lambda: state, "", domain_db("airline"), shared=shared)
    outcomes = set()
    for res in records:
        for topic in TOPICS:
            expected = _reference(state, topic, res)
            assert checker._verdict(checker.policy, topic, res) == expected, (topic, res.get("reservation_id"))
            outcomes.add(f"{topic}:{expected[2] if expected else None}")
    return len(records) * len(TOPICS), outcomes


@pytest.mark.parametrize("name", RUNS)
def test_a_verdict_asked_once_answers_as_before(name):
    compared, outcomes = 0, set()
    for turns, messages in read_conversations(name):
        shared: dict = {}  # one conversation's, as ``consequential_sentences`` keeps it
        for state in _states(turns, messages, "airline"):
            if state.now is None or not state.reservations:
                continue
            records = [*state.reservations.values(), *state.earlier]
            # a record one of whose flights is no record: ``_not_cancellable`` reads its records alone
            records += [{**r, "flights": [*r["flights"], "HAT001"]} for r in records[:1] if isinstance(r.get("flights"), list)]
            n, seen = _verdicts(state, shared, records)
            compared, outcomes = compared + n, outcomes | seen
    assert compared > 1000
    # every kind of answer was compared: each topic's allowed and forbidden, an undecided cancellation
    assert {"cancel:allowed", "cancel:forbidden", "cancel:undecided", "cabin:allowed", "flights:allowed",
            "flights:forbidden"} <= outcomes, outcomes
