"""The record's states built when asked (``_conversation_state.States``, #47) answer as every state built at once
(``_states``, the path they skip) on real runs: each message's state equal and written alike, asked in any order,
and the tool results after the last message asked left unparsed."""

from __future__ import annotations

import random

import pytest

from conversation_reading._conversation_state import States, _states
from conversation_reading._turn_index import TurnIndex
from tests.conftest import read_conversations

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


@pytest.mark.parametrize("name", RUNS)
def test_states_built_when_asked_equal_every_state_built_at_once(name):
    domain = "retail" if "retail" in name else "airline"
    rng = random.Random(47)
    compared = parsed_later = 0
    for turns, messages in read_conversations(name):
        every = _states(turns, messages, domain)  # json's parse, every state built
        index = TurnIndex(turns, messages)
        lazy = States(turns, messages, domain, index.parsed)
        assert len(lazy) == len(messages)
        first = rng.randrange(len(messages))
        assert lazy[first] == every[first] and repr(lazy[first]) == repr(every[first])
        # read no further than asked: no tool result after the message asked is parsed
        assert all(i < first for i in index._parsed)
        parsed_later += any(m.role == "tool" for m in messages[first:])
        order = list(range(len(messages)))
        rng.shuffle(order)
        for i in order:
            state = lazy[i]
            assert state is lazy[i]  # built once
            assert state == every[i] and repr(state) == repr(every[i]) and state.said == every[i].said
            compared += 1
        with pytest.raises(IndexError):
            lazy[len(messages)]
        with pytest.raises(IndexError):
            lazy[-1]
    assert compared > 500 and parsed_later > 10
