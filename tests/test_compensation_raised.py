"""``compensation_raised_at`` reads the agent's messages in order up to the first that raises compensation (#47), as
the list of every message its gate lets through, then the first before the certificate sent that says it, did:
on the real runs, and on written conversations where words come before a certificate sent, only after it, or never."""

from __future__ import annotations

from typing import Any

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage

from conversation_reading._evidence import Turn, read_turns
from conversation_reading._lowered_search import says
from conversation_reading._message_scan import gate_of
from conversation_reading._precondition_facts import compensation_raised_at
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary
from tests.conftest import read_conversations

RUNS = ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json",
        "whissle_retail_tau3_5sims.json", "toolorchestra_retail_tau2_1trial.json")


def _reference(turns: list[Turn], index: TurnIndex) -> int | None:
    """The reading before: every message the gate lets through listed (``TurnIndex.saying``), then the first."""
    words = vocabulary().requests["send_certificate"]
    sent = index.named("send_certificate")
    until = sent[0][0].index if sent else len(turns)
    said = next((t.index for t in index.saying(words, gate_of(words, "assistant"), "assistant")
                 if t.index < until and says(words, t.text, t.text.lower() if t.text.isascii() else None)), None)
    return said if said is not None or not sent else until


@pytest.mark.parametrize("name", RUNS)
def test_the_real_runs_read_as_before(name):
    for turns, messages in read_conversations(name):
        assert compensation_raised_at(turns, TurnIndex(turns, messages)) == _reference(turns, TurnIndex(turns, messages))


def _send(n: int) -> AssistantMessage:
    return AssistantMessage(role="assistant", content=None, tool_calls=[
        ToolCall(id=f"c{n}", name="send_certificate", arguments={"user_id": "u", "amount": 100})])


_WORDS = "I can offer you a travel certificate for the trouble."
_PLAIN = "Let me look into that for you."


@pytest.mark.parametrize(("said", "expected"), [
    ([_PLAIN, _WORDS, "send", _WORDS], 2),  # words before the certificate sent
    ([_PLAIN, "send", _WORDS, _WORDS], 2),  # only after it: the message sending it
    ([_PLAIN, _PLAIN, _WORDS], 3),  # words, none sent
    ([_PLAIN, _PLAIN, _PLAIN], None),  # neither
    (["Ã " + _WORDS, "send"], 1),  # a text the gate does not apply to
])
def test_written_conversations_read_as_before(said: list[str], expected: int | None):
    messages: list[Any] = [UserMessage(role="user", content="My flight was delayed.")]
    for i, text in enumerate(said):
        messages.append(_send(i) if text == "send" else AssistantMessage(role="assistant", content=text))
    turns = read_turns(messages)
    assert compensation_raised_at(turns, TurnIndex(turns, messages)) == expected
    assert _reference(turns, TurnIndex(turns, messages)) == expected
