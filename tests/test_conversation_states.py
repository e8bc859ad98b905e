"""The states of a conversation (``_conversation_state._states``, #47) read on real runs as they were built before:
what was said before each message, joined when first read, is the conversation's words so far, each after a line
break; a state is a state's equal exactly where its fields are, and written as one (``dataclasses.replace`` too); and a user's or agent's message changes nothing the
tool results set."""

from __future__ import annotations

import dataclasses

import pytest

from conversation_reading._conversation_state import _State, _states
from conversation_reading._turn_index import TurnIndex
from tests.conftest import read_conversations

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


@pytest.mark.parametrize("name", RUNS)
def test_each_state_holds_what_was_said_and_read_before_its_message(name):
    domain = "retail" if "retail" in name else "airline"
    spoken = 0
    for turns, messages in read_conversations(name):
        states = _states(turns, messages, domain, TurnIndex(turns, messages).parsed)
        assert len(states) == len(messages)
        said = ""  # as the states accumulated it, one message at a time
        for t, state in zip(turns, states, strict=True):
            assert state.said == said and state.said is state.said  # joined once
            as_built = _State(state.reservations, state.last_reservation, state.user, state.flights, state.now,
                              state.statuses, state.domain, said, state.earlier)
            assert state == as_built and repr(state) == repr(as_built)
            assert dataclasses.replace(state, user=None) == dataclasses.replace(as_built, user=None)
            assert state != _State(state.reservations, state.last_reservation, state.user, state.flights,
                                   state.now, state.statuses, state.domain, said + "\n", state.earlier)
            if t.role in ("user", "assistant"):
                said += "\n" + t.text
                spoken += bool(t.text)
        # the words change a state's ``said`` alone: a tool's result (a read record, a search) its other fields
        for t, before, after in zip(turns, states, states[1:], strict=False):
            if t.role in ("user", "assistant"):
                assert (after.reservations, after.last_reservation, after.user, after.flights, after.statuses,
                        after.earlier) == (before.reservations, before.last_reservation, before.user,
                                           before.flights, before.statuses, before.earlier)
    assert spoken > 100
