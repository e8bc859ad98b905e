"""``tool_call_pairs`` refuses a message list exactly where, and with the words, tau2's ``set_state`` does, and
pairs every tool call of real runs with its own tool message."""

from __future__ import annotations

import glob
import json

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import SimulationRun

from envs import tool_call_pairs
from envs._replay import TrajectoryStructureError
from envs._tasks import environment_constructor
from tests.conftest import SHARED


def _call(i: str) -> ToolCall:
    return ToolCall(id=i, name="get_user_details", arguments={"user_id": "nobody"})


def _asks(*ids: str) -> AssistantMessage:
    return AssistantMessage(role="assistant", tool_calls=[_call(i) for i in ids])


def _answer(i: str) -> ToolMessage:
    return ToolMessage(id=i, role="tool", content="Error: User not found")


BAD = [
    [_answer("a")],  # a tool message first
    [_asks("a")],  # a call with nothing after it
    [_asks("a", "b"), _answer("a")],  # the second call's message missing
    [_asks("a"), UserMessage(role="user", content="hi")],  # not a tool message
    [_asks("a"), _answer("b")],  # another call's message
    [_asks("a"), _answer("a"), _answer("a")],  # one message too many
]


@pytest.mark.parametrize("messages", BAD)
def test_a_bad_list_is_refused_in_tau2s_words(messages):
    with pytest.raises(ValueError) as tau2:
        environment_constructor("airline")().set_state(None, None, messages)
    with pytest.raises(TrajectoryStructureError) as ours:
        tool_call_pairs(messages)
    assert str(ours.value) == str(tau2.value)


def test_real_runs_pair_every_call_with_its_message():
    checked = 0
    for name in sorted(glob.glob(str(SHARED / "real-runs" / "*.json"))):
        with open(name, "rb") as fh:
            data = json.load(fh)
        for raw in (data.get("simulations") or [])[:12]:
            messages = SimulationRun.model_validate(raw).messages
            calls = [tc for m in messages if isinstance(m, (AssistantMessage, UserMessage)) for tc in m.tool_calls or ()]
            answers = [m for m in messages if isinstance(m, ToolMessage)]
            pairs = tool_call_pairs(messages)
            assert [tc for tc, _ in pairs] == calls and [tm for _, tm in pairs] == answers
            checked += len(pairs)
    assert checked > 100
