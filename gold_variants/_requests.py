"""Independent requests follow the conversation (#24 item 2).

A refusal keeps the gold's writes that the contested clause does not touch (task 29's checked bag). The
gold's user always asks for them, but a conversation that ends at the refusal may never get there: such a
write is required only when the user asked for it in this conversation (the catalog's ``requests`` say what
asking sounds like), and then it must be done. Where it was asked and not done, the conversation's end
decides: the user chose a transfer after the refusal, or agreed and hung up before the write (uncertain);
otherwise the agent ignored the request (no credit)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tau2.data_model.message import Message

from conversation_reading import (
    TRANSFER_TOOL,
    ConversationRecord,
    is_read_tool,
    mentions,
    read_turns,
    vocabulary,
)
from gold_variants._model import GoldVariant


@dataclass(frozen=True)
class Requests:
    unasked: list[str]  # independent action ids the user never asked for: not required
    asked: dict[str, int]  # independent action id -> the user message that asked for it

    def note(self, variant: GoldVariant) -> str:
        names = {a.action_id: a.name for a in variant.actions or []}
        parts = [f"{names[a]} asked at message {i}" for a, i in self.asked.items()]
        parts += [f"{names[a]} never asked (not required)" for a in self.unasked]
        return "; ".join(parts)


def requests_in(variant: GoldVariant, messages: Sequence[Message], record: ConversationRecord | None = None) -> Requests:
    """Which of ``variant``'s independent writes the user asked for in ``messages`` (their record's requests,
    where scoring gives it)."""
    if not variant.independent:
        return Requests([], {})
    if record is not None:
        return _requested(variant, record)
    turns = read_turns(messages)
    by_id = {a.action_id: a for a in variant.actions or []}
    asked: dict[str, int] = {}
    unasked: list[str] = []
    for action_id in variant.independent:
        pattern = vocabulary().requests.get(by_id[action_id].name)
        if pattern is None:  # no words for asking: required, as the gold has it
            asked[action_id] = -1
            continue
        ask = next((t for t in turns if t.role == "user" and mentions(pattern, t.text)), None)
        if ask is None:
            unasked.append(action_id)
        else:
            asked[action_id] = ask.index
    return Requests(unasked, asked)


def _requested(variant: GoldVariant, record: ConversationRecord) -> Requests:
    by_id = {a.action_id: a for a in variant.actions or []}
    first = {r.tool: r.message_index for r in record.requests}
    asked: dict[str, int] = {}
    unasked: list[str] = []
    for action_id in variant.independent or []:
        name = by_id[action_id].name
        if name not in vocabulary().requests:  # no words for asking: required, as the gold has it
            asked[action_id] = -1
        elif name in first:
            asked[action_id] = first[name]
        else:
            unasked.append(action_id)
    return Requests(unasked, asked)


def pending_ending(messages: Sequence[Message]) -> str | None:
    """Why an asked write may be pending rather than ignored: the user chose a transfer (their last message
    before the agent's last transfer asks for one), or agreed and ended the call with no write after."""
    turns = read_turns(messages)
    v = vocabulary()
    transfer = next((t for t in reversed(turns) if any(c.name == TRANSFER_TOOL for c in t.calls)), None)
    if transfer is not None:
        said = next((t for t in reversed(turns[: transfer.index]) if t.role == "user"), None)
        if said is not None and mentions(v.transfer_request, said.text):
            return f"the user chose a transfer at message {said.index}"
        return None
    last_user = next((t for t in reversed(turns) if t.role == "user"), None)
    if last_user is None or "###STOP###" not in last_user.text:
        return None
    wrote_after = any(
        c.name != TRANSFER_TOOL and not is_read_tool(c.name) for t in turns[last_user.index :] for c in t.calls
    )
    if not wrote_after and mentions(v.agreement, last_user.text.replace("###STOP###", "")):
        return f"the user agreed and ended the call at message {last_user.index}"
    return None
