"""Policy-reading agents and a scripted user: tau2 agent and user classes that need no LLM.

A reading agent acts out a plan through tau2's real orchestrator and environment: the gold, or, on a task
where a loophole applies, the variant of the reading its strategy picks (after the paper's Appendix E):

- ``conservative`` prefers refusal and strict readings;
- ``creative`` prefers workaround readings;
- ``inconsistent`` draws a reading per trial from a seeded uniform distribution.

``procedural_error_rate`` makes it drop one write action now and then, so non-loophole tasks fail too.
What it meant to enact (``intended_gold_id``) is recorded: the ground truth for the analysis.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.message import AssistantMessage, MultiToolMessage, ToolCall, UserMessage
from tau2.data_model.tasks import Action, Task
from tau2.user.user_simulator import UserSimulator

from envs import load_task_set
from gold_variants import (
    ASK_COMPENSATION_TEXT,
    EVIDENCE_TEXT,
    closing_text,
    confirmation_text,
    gold_reading,
    policy_fixes,
    variants_for,
    witness,
)

Profile = Literal["conservative", "creative", "inconsistent"]

# Readings by character; a profile takes the first reading of its list that the task offers.
CONSERVATIVE = ["refuse", "strict", "membership_only", "not_returnable", "one_attempt", "modify_in_place"]
CREATIVE = ["cancel_and_rebook", "two_calls", "single_call", "business_disjunct", "lenient", "modify_in_place"]

REFUSAL_TEXT = EVIDENCE_TEXT["refusal"]
DECLINE_COMPENSATION_TEXT = EVIDENCE_TEXT["declines_compensation"]
# The clause a gold that refuses declines (the gold needs no evidence; the agent still says why).
_GOLD_REFUSAL = {"L6": "refuse_basic_economy_modify", "L16": "refuse_route_change"}


@dataclass(frozen=True)
class ReadingPlan:
    intended_gold_id: str  # "gold" or a variant's gold_id
    reading: str | None  # the reading's name, None where no loophole applies
    actions: tuple[Action, ...]
    closing: str
    procedural_error: bool = False
    domain: str = "airline"  # whose write tools wait for the user's yes


Option = tuple[str, str | None, list[Action], str | None, list[str] | None]


def _options(domain: str, version: str, task: Task) -> list[Option]:
    """(gold_id, reading, actions, evidence, communicate_info) for the gold and every variant of the task."""
    gold = list(task.evaluation_criteria.actions or []) if task.evaluation_criteria else []
    own = gold_reading(domain, version, task.id)
    said = _GOLD_REFUSAL.get(own[0], "refusal") if own and own[1] == "refuse" else None
    options: list[Option] = [("gold", own[1] if own else None, gold, said, None)]
    for v in variants_for(domain, version, task.id):
        options.append((v.gold_id, v.reading, witness(v), v.evidence, v.communicate_info))
    return options


def choose_plan(
    domain: str, version: str, task_id: str, profile: Profile, seed: int, error_rate: float = 0.0,
    fixes: tuple[str, ...] = (),
) -> ReadingPlan:
    """The plan a profile picks; under policy fixes, only the reading each fix keeps is on offer."""
    task = load_task_set(domain, version).task(task_id)
    options = _options(domain, version, task)
    for name in fixes:
        keep = policy_fixes()[name].allowed_reading(domain, version, task_id)
        if keep is not None:
            kept = [o for o in options if o[1] == keep]
            options = kept or options  # a kept reading the task cannot enact leaves the choice as it was
    rng = random.Random(seed)
    if profile == "inconsistent":
        chosen = rng.choice(options)
    else:
        order = CONSERVATIVE if profile == "conservative" else CREATIVE
        rank = {name: i for i, name in enumerate(order)}
        chosen = min(options, key=lambda o: (rank.get(o[1] or "", len(order)), o[0] != "gold"))
    gold_id, reading, actions, evidence, own_info = chosen
    told = list(task.evaluation_criteria.communicate_info or []) if task.evaluation_criteria else []
    told = told if own_info is None else own_info
    actions = list(actions)
    erred = False
    if error_rate and rng.random() < error_rate:
        writes = [i for i, a in enumerate(actions) if not a.name.startswith(("get_", "search_", "list_", "find_", "calculate"))]
        if writes:
            del actions[rng.choice(writes)]
            erred = True
    return ReadingPlan(gold_id, reading, tuple(actions), closing_text(evidence, told), erred, domain)


def _receive(state, message) -> None:
    """Add an incoming message (or a batch of tool results) to the state, as tau2's own classes do."""
    if isinstance(message, MultiToolMessage):
        state.messages.extend(message.tool_messages)
    else:
        state.messages.append(message)


class ReadingAgent(LLMAgent):
    """Acts out a ``ReadingPlan``: one tool call per turn (a write after asking and hearing the user's yes), then
    the closing message."""

    def __init__(self, tools, domain_policy: str, plan: ReadingPlan) -> None:
        super().__init__(tools=tools, domain_policy=domain_policy, llm=None, llm_args={})
        self.plan = plan

    def set_seed(self, seed: int) -> None:  # the plan is already fixed by the trial seed
        pass

    def generate_next_message(self, message, state):
        _receive(state, message)
        done = sum(len(m.tool_calls or []) for m in state.messages if isinstance(m, AssistantMessage))
        ask = (confirmation_text(done, self.plan.actions[done].name, self.plan.domain, self.plan.actions[done].arguments)
               if done < len(self.plan.actions) else None)
        asked = ask is not None and isinstance(message, UserMessage) and any(
            isinstance(m, AssistantMessage) and m.content == ask for m in state.messages)
        if ask is not None and not asked:  # a write waits for the user's yes (the policy's conduct rule)
            reply = AssistantMessage(role="assistant", content=ask)
        elif done < len(self.plan.actions):
            action = self.plan.actions[done]
            reply = AssistantMessage(
                role="assistant", content=None,
                tool_calls=[ToolCall(id=f"call_{done}", name=action.name, arguments=dict(action.arguments))],
            )
        else:
            reply = AssistantMessage(role="assistant", content=self.plan.closing)
        state.messages.append(reply)
        return reply, state


_ASKS_INFO = re.compile(r"\b(user id|user ID|reservation (id|number)|your name|zip|email|order id)\b", re.IGNORECASE)
_WANTS_COMPENSATION = re.compile(r"\bcompensat", re.IGNORECASE)
_CONFIRM = ("confirm", "proceed", "(yes/no)", "shall i", "would you like me to", "do you want me to")


_ALSO_WANTS = re.compile(r"\bYou also want (.+?[.!])", re.IGNORECASE)


class ScriptedUser(UserSimulator):
    """Opens with the reason for the call, gives ``known_info`` when asked, confirms, then stops."""

    def __init__(self, task: Task) -> None:
        super().__init__(tools=None, instructions=str(task.user_scenario), llm=None, llm_args={})
        ins = task.user_scenario.instructions
        self._reason = ins if isinstance(ins, str) else ins.reason_for_call
        self._known = "" if isinstance(ins, str) else (ins.known_info or "")
        # The scenario's further requests ("You also want to add 1 checked bag."), said up front: a
        # refusal's independent writes are required only when the user asks for them.
        also = [] if isinstance(ins, str) else _ALSO_WANTS.findall(ins.task_instructions or "")
        self._reason = "\n".join([self._reason, *(f"I also want {w.strip()}" for w in also)])
        # A user whose scenario is about compensation asks for it (the agent must not offer it first).
        self._ask = ASK_COMPENSATION_TEXT if _WANTS_COMPENSATION.search(str(task.user_scenario)) else ""

    def set_seed(self, seed: int) -> None:
        pass

    def generate_next_message(self, message, state):
        _receive(state, message)
        spoken = sum(1 for m in state.messages if isinstance(m, UserMessage))
        text = (getattr(message, "content", None) or "").lower()
        if spoken == 0:
            content = "\n".join(p for p in (self._reason, self._ask, self._known) if p)
        elif "transfer" in text and "human agent" in text:
            content = "###TRANSFER###"
        elif any(w in text for w in _CONFIRM):
            content = "yes"
        elif "?" in text and _ASKS_INFO.search(text) and self._known:
            content = self._known
        else:
            content = "Thank you, that is all. ###STOP###"
        reply = UserMessage(role="user", content=content)
        state.messages.append(reply)
        return reply, state
