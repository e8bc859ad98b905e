"""The scripted roles: an agent that acts out a plan, and a user that states the task and confirms.

The request says which role and plan through the model name (``scripted-agent``, ``scripted-agent:<gold_id>``
for a gold variant's plan, falling back to the gold where the task has no such variant; ``scripted-user``) and which task through the ``X-Harness-Task`` header
(``domain/version/task_id``) that the sweep runner sends with every completion.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tau2.data_model.tasks import Action

from envs import load_task_set
from gold_variants import (
    ASK_COMPENSATION_TEXT,
    EVIDENCE_TEXT,
    closing_text,
    confirmation_text,
    variants_for,
)

CONFIRM_WORDS = ("confirm", "proceed", "(yes/no)", "shall i", "would you like me to", "do you want me to")
REFUSAL_TEXT = EVIDENCE_TEXT["refusal"]
DECLINE_COMPENSATION_TEXT = EVIDENCE_TEXT["declines_compensation"]


@dataclass(frozen=True)
class Plan:
    actions: tuple[Action, ...]
    closing: str


@lru_cache(maxsize=4096)
def plan_for(task_ref: str, plan: str) -> Plan:
    domain, version, task_id = task_ref.split("/", 2)
    task = load_task_set(domain, version).task(task_id)
    criteria = task.evaluation_criteria
    told = list(criteria.communicate_info or []) if criteria else []
    if plan == "gold":
        actions = tuple(criteria.actions or []) if criteria else ()
        return Plan(actions, " ".join(["Your request has been handled.", *told]))
    variant = next((v for v in variants_for(domain, version, task_id) if v.gold_id == plan), None)
    if variant is None or variant.actions is None:
        return plan_for(task_ref, "gold")  # a task without this reading: the agent follows the gold
    own = variant.communicate_info
    return Plan(tuple(variant.actions), closing_text(variant.evidence, told if own is None else own))


@lru_cache(maxsize=4)
def _reasons(version: str) -> list[tuple[str, str]]:
    out = []
    for domain in ("airline", "retail"):
        for task in load_task_set(domain, version).tasks:
            ins = task.user_scenario.instructions
            reason = ins if isinstance(ins, str) else ins.reason_for_call
            out.append((" ".join(reason.split()), f"{domain}/{version}/{task.id}"))
    return out


def task_from_conversation(body: dict, version: str) -> str | None:
    """The task whose reason for call the conversation contains: for clients that cannot send the
    ``X-Harness-Task`` header (tau2's own runner, in the benchmark)."""
    # whitespace-insensitive: tau2 indents the scenario it puts in the user simulator's prompt
    text = " ".join(" ".join(str(m.get("content") or "") for m in body.get("messages", [])).split())
    hits = [ref for reason, ref in _reasons(version) if reason and reason in text]
    return hits[0] if hits else None


def _first_words(task_ref: str) -> str:
    domain, version, task_id = task_ref.split("/", 2)
    ins = load_task_set(domain, version).task(task_id).user_scenario.instructions
    if isinstance(ins, str):
        return ins
    # A user whose scenario is about compensation asks for it (the agent must not offer it first).
    ask = ASK_COMPENSATION_TEXT if "compensat" in str(ins).lower() else None
    return "\n".join(p for p in (ins.reason_for_call, ask, ins.known_info) if p)


def agent_reply(body: dict, task_ref: str, plan: str, malformed: bool = False) -> dict[str, Any]:
    """The next step of the plan: a tool call, or the closing message once every call is made."""
    done = sum(len(m.get("tool_calls") or []) for m in body.get("messages", []) if m.get("role") == "assistant")
    steps = plan_for(task_ref, plan)
    ask = (confirmation_text(done, steps.actions[done].name, task_ref.split("/", 1)[0], steps.actions[done].arguments)
           if done < len(steps.actions) else None)
    said = body.get("messages", [])
    asked = ask is not None and bool(said) and said[-1].get("role") == "user" and any(
        m.get("role") == "assistant" and m.get("content") == ask for m in said)
    if ask is not None and not asked:  # a write waits for the user's yes (the policy's conduct rule)
        return {"content": ask}
    if done < len(steps.actions):
        action = steps.actions[done]
        arguments = json.dumps(action.arguments)
        if malformed:
            arguments = arguments[:-1]  # truncated JSON, as a flaky provider sends it
        return {
            "content": None,
            "tool_calls": [{
                "id": f"call_{done}_{action.name}",
                "type": "function",
                "function": {"name": action.name, "arguments": arguments},
            }],
        }
    return {"content": steps.closing}


def user_reply(body: dict, task_ref: str) -> dict[str, Any]:
    """Open with the reason for the call; say yes when asked to confirm; otherwise stop."""
    messages = body.get("messages", [])
    spoken = sum(1 for m in messages if m.get("role") == "assistant")  # the user's own turns, flipped
    if spoken == 0:
        return {"content": _first_words(task_ref)}
    last = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    if any(w in last.lower() for w in CONFIRM_WORDS):
        return {"content": "yes"}
    return {"content": "Thank you, that is all. ###STOP###"}
