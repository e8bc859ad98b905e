"""What a trajectory must show for a refusal-type variant to credit it.

A refusal's database outcome is the initial database, which an agent that did nothing also reaches
(a crash, a loop, a user who gave up). Refusal variants therefore also require evidence of the decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tau2.data_model.message import AssistantMessage, Message

_DECLINE = re.compile(
    r"\b(cannot|can't|can not|unable to|not able to|not allowed|not permitted|not possible|"
    r"won't be able|not eligible|must decline|only (?:issue|offer|provide)|only available)\b",
    re.IGNORECASE,
)
_COMPENSATION = re.compile(r"\b(compensat\w*|certificate|voucher)\b", re.IGNORECASE)
_CONDITION = re.compile(r"\b(requires?|required|tied|only|specifically|unless|prerequisite)\b", re.IGNORECASE)
_CHANGE = re.compile(r"\b(chang\w*|cancel\w*|modif\w*)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _declines_compensation(text: str) -> bool:
    """A sentence that withholds compensation (or makes it conditional) in a message that names the
    change-or-cancel condition: the strict reading of the delay clause, said to the user."""
    if not _CHANGE.search(text):
        return False
    return any(
        _COMPENSATION.search(s) and (_DECLINE.search(s) or _CONDITION.search(s)) for s in _SENTENCE.split(text)
    )


def _assistant_texts(messages: Sequence[Message]) -> list[str]:
    return [m.content for m in messages if isinstance(m, AssistantMessage) and m.content]


def _transferred(messages: Sequence[Message]) -> bool:
    return any(
        tc.name == "transfer_to_human_agents"
        for m in messages
        if isinstance(m, AssistantMessage) and m.tool_calls
        for tc in m.tool_calls
    )


def evidence_holds(kind: str | None, messages: Sequence[Message]) -> bool:
    if kind is None:
        return True
    texts = _assistant_texts(messages)
    if kind == "refusal":
        return _transferred(messages) or any(_DECLINE.search(t) for t in texts)
    if kind == "declines_compensation":
        return any(_declines_compensation(t) for t in texts)
    raise ValueError(f"unknown evidence kind {kind!r}")
