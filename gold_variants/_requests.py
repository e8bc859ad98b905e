"""Independent requests follow the conversation (#24 item 2).

A refusal keeps the gold's writes that the contested clause does not touch (task 29's checked bag). The
gold's user always asks for them, but a conversation that ends at the refusal may never get there: such a
write is required only when the user asked for it in this conversation (the catalog's ``requests`` say what
asking sounds like), and then it must be done. Where it was asked and not done, the conversation's end
decides: the user chose a transfer after the refusal, or agreed and hung up before the write (uncertain);
otherwise the agent ignored the request (no credit)."""

from __future__ import annotations

from dataclasses import dataclass

from conversation_reading import ConversationRecord, vocabulary
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


def requests_in(variant: GoldVariant, record: ConversationRecord) -> Requests:
    """Which of ``variant``'s independent writes the user asked for: the conversation's record's requests
    (scoring's, read once for every verdict)."""
    if not variant.independent:
        return Requests([], {})
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


def pending_ending(variant: GoldVariant, record: ConversationRecord) -> str | None:
    """Why an asked write may be pending rather than ignored (the conversation's record's ``pending_ending``,
    scoring's): the user chose a transfer (their last message before the agent's last transfer
    asks for one), or agreed and ended the call with no write after."""
    ending = record.pending_ending
    return None if ending is None else ending.why
