"""Whether a message is a tau2 ``ToolMessage`` or ``AssistantMessage``, answered by its type (#47).

``isinstance`` against a pydantic model class goes through ``ABCMeta.__instancecheck__`` (pydantic's metaclass is
one): about 900 instructions a test against about 260 for a test of the type, and the record's readers test every
message of a conversation (the turns, the tool results by call id, the failed writes, the states). A pydantic model's
class is its type (``__class__`` is not set per instance), so ``isinstance`` answers alike for every message of a
type: it is asked once per type and kept (keyed on the program's classes, never on a conversation's text)."""

from __future__ import annotations

from typing import Any, TypeGuard

from tau2.data_model.message import AssistantMessage, ToolMessage

_TOOL: dict[type, bool] = {ToolMessage: True}
_ASSISTANT: dict[type, bool] = {AssistantMessage: True}


def is_tool_message(m: object) -> TypeGuard[ToolMessage]:
    """``isinstance(m, ToolMessage)``."""
    found = _TOOL.get(type(m))
    if found is None:
        found = _TOOL[type(m)] = isinstance(m, ToolMessage)
    return found


def is_assistant_message(m: object) -> TypeGuard[AssistantMessage]:
    """``isinstance(m, AssistantMessage)``."""
    found = _ASSISTANT.get(type(m))
    if found is None:
        found = _ASSISTANT[type(m)] = isinstance(m, AssistantMessage)
    return found


# Whether a kind of message has tool calls, by its class: a tool's result has none, and reading a missing attribute
# of a pydantic model raises inside it (``getattr``'s default then costs an exception, several microseconds each)
_HAS_CALLS: dict[type, bool] = {}


def calls_of(m: object) -> Any:
    """``getattr(m, "tool_calls", None)``, the attribute read only where the message's kind has it."""
    has = _HAS_CALLS.get(type(m))
    if has is None:
        has = _HAS_CALLS[type(m)] = hasattr(m, "tool_calls")
    return m.tool_calls if has else None  # type: ignore[attr-defined]


__all__ = ["calls_of", "is_assistant_message", "is_tool_message"]
