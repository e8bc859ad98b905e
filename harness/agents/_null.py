"""The null agent: no LLM, no tool call, a polite goodbye. Its single-gold pass rate is what doing nothing
earns (the do-nothing ceiling ``harness audit golds`` measures); it says nothing that declines, transfers or
names a clause, so a strict reward never credits it."""

from __future__ import annotations

from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.message import AssistantMessage

from harness.agents._reading import _receive
from loophole_scoring import DO_NOTHING_GOODBYE


class NullAgent(LLMAgent):
    """Answers every message with the same goodbye (the audit's do-nothing trajectory says the same)."""

    def __init__(self, tools, domain_policy: str) -> None:
        super().__init__(tools=tools, domain_policy=domain_policy, llm=None, llm_args={})

    def set_seed(self, seed: int) -> None:  # nothing is drawn
        pass

    def generate_next_message(self, message, state):
        _receive(state, message)
        reply = AssistantMessage(role="assistant", content=DO_NOTHING_GOODBYE)
        state.messages.append(reply)
        return reply, state
