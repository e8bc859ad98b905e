"""Messages the label cases' edits write (``label_cases``, ``label_cases_conduct``), as tau2 records them."""

from __future__ import annotations

import copy
from typing import Any

Sim = dict[str, Any]


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": text, "tool_calls": None, "turn_idx": None}


def user(text: str) -> dict:
    return {"role": "user", "content": text, "tool_calls": None, "turn_idx": None}


def call(call_id: str, name: str, arguments: dict) -> dict:
    """An agent's tool call, as tau2 records it."""
    return {"role": "assistant", "content": None, "turn_idx": None,
            "tool_calls": [{"id": call_id, "name": name, "arguments": arguments, "requestor": "assistant"}]}


def result(call_id: str, content: str) -> dict:
    """The tool's answer to ``call``."""
    return {"role": "tool", "id": call_id, "content": content, "requestor": "assistant", "error": False,
            "turn_idx": None}


def before_transfer(sim: Sim) -> list[dict]:
    """The conversation up to (not including) the agent's first transfer call, copied."""
    out = []
    for m in sim["messages"]:
        if any(c.get("name") == "transfer_to_human_agents" for c in m.get("tool_calls") or []):
            break
        out.append(copy.deepcopy(m))
    return out
