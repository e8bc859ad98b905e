"""A message's kind read by its type (``_message_kinds``, #47) answers as ``isinstance``: on every message of the
real runs, asked again once kept, and on each tau2 message class, a subclass of one and objects that are no message."""

from __future__ import annotations

from typing import Any

import pytest
from tau2.data_model.message import (
    AssistantMessage,
    MultiToolMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from conversation_reading._message_kinds import is_assistant_message, is_tool_message
from tests.conftest import read_conversations

RUNS = ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json",
        "whissle_retail_tau3_5sims.json", "toolorchestra_retail_tau2_1trial.json")


class _OwnTool(ToolMessage):
    """A subclass of a tau2 class: ``isinstance`` holds for it."""


def _same(m: Any) -> None:
    for _ in range(2):  # asked, then answered from what was kept
        assert is_tool_message(m) is isinstance(m, ToolMessage)
        assert is_assistant_message(m) is isinstance(m, AssistantMessage)


@pytest.mark.parametrize("name", RUNS)
def test_every_message_of_the_real_runs_is_told_as_isinstance_tells_it(name):
    kinds = {True: 0, False: 0}
    for _, messages in read_conversations(name):
        for m in messages:
            _same(m)
            kinds[is_tool_message(m)] += 1
    assert kinds[True] and kinds[False]  # both answers were asked for


def test_each_class_a_subclass_and_no_message_answer_as_isinstance():
    made = [
        SystemMessage(role="system", content="rules"),
        AssistantMessage(role="assistant", content="hi"),
        UserMessage(role="user", content="hello"),
        ToolMessage(id="c1", role="tool", content="{}"),
        _OwnTool(id="c2", role="tool", content="{}"),
        MultiToolMessage(role="tool", tool_messages=[ToolMessage(id="c3", role="tool", content="{}")]),
        "tool", {"role": "tool"}, None, 3,
    ]
    for m in made:
        _same(m)
    assert is_tool_message(made[4]) and not is_tool_message(made[5]) and is_assistant_message(made[1])
