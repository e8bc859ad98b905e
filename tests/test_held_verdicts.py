"""The policy model's verdicts a consequential sentence asks (``_sentence_facts._Checker._verdict``, #47) answer as
before on real runs: a cancellation asked of the model once where ``_not_cancellable`` would read the same record
(its flights all records), and the database's flight statuses kept for the conversation (``held_status``), each the
answer of ``_claims._status``, the path they replace."""

from __future__ import annotations

from functools import partial

import pytest

from conversation_reading._claims import _status
from conversation_reading._conversation_state import _State, _states
from conversation_reading._domain import domain_db
from conversation_reading._held_statuses import held_status
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
def test_a_verdict_asked_once_with_statuses_held_answers_as_before(name):
    compared, outcomes, statuses = 0, set(), 0
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
            status = held_status(state, shared.setdefault("database statuses", {}))
            for r in records:
                for f in r.get("flights") or ():
                    if isinstance(f, dict):
                        leg = str(f.get("flight_number")), str(f.get("date"))
                        assert status(*leg) == status(*leg) == _status(state, *leg), leg  # asked, then held
                        statuses += 1
    assert compared > 1000 and statuses > 500
    # every kind of answer was compared: each topic's allowed and forbidden, an undecided cancellation
    assert {"cancel:allowed", "cancel:forbidden", "cancel:undecided", "cabin:allowed", "flights:allowed",
            "flights:forbidden"} <= outcomes, outcomes


def test_a_status_held_is_the_conversations_and_a_status_read_comes_first():
    db = domain_db("airline")
    number = next(iter(db.flights))
    date = next(iter(db.flights[number].dates))
    read = _State({}, None, None, {}, None, {(number, date): "cancelled"}, "airline")
    unread = _State({}, None, None, {}, None, {}, "airline")
    held: dict = {}
    assert held_status(unread, held)(number, date) == _status(unread, number, date) != "cancelled"
    assert held_status(read, held)(number, date) == "cancelled"  # what the conversation read, over the database's
    assert held_status(unread, held)("HAT999", "2024-01-01") is None and ("HAT999", "2024-01-01") in held
    no_domain = _State({}, None, None, {}, None, {}, "")
    assert held_status(no_domain, held)(number, date) is None  # no domain: only what was read
