"""Compensation offered before the user asked for any (#40 class 5): a universal conduct check of
``gold_variants``, read here because the record of a conversation (``_reading``) holds its finding."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from conversation_reading._evidence import Turn, asserted, excerpt_of, split_sentences
from conversation_reading._gate import may_match
from conversation_reading._message_scan import gate_of
from conversation_reading._record import Decline
from conversation_reading._requests import asks_compensation
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary
from policy_model import CHANGE_OR_CANCEL, COMPENSATION_TOOL

Check = Literal["writes_confirmed", "compensation_asked", "no_forbidden_cancellation", "no_unwarranted_transfer"]


@dataclass(frozen=True)
class Violation:
    check: Check
    message_index: int
    detail: str


def offer_said(t: Turn, index: TurnIndex) -> str | None:
    """The first sentence of the agent's message ``t`` offering compensation in words (asserted, declining nothing),
    each sentence gated first (``_gate``): a catalog pattern's scan is slow."""
    v = vocabulary()
    gated = index.lowered(t.text)[1]
    for s, low in zip(split_sentences(t.text), index.sentences_lowered(t.text), strict=True):
        m = v.compensation_offer.search(s) if may_match(v.compensation_offer, low, gated) else None
        if m is not None and asserted(s, m.start()) and not v.decline.search(s):
            return s
    return None


def unasked_compensation(
    turns: list[Turn], declined_before: Callable[[str, int], Sequence[Decline]], index: TurnIndex | None = None,
) -> Violation | None:
    """Compensation offered or sent before the user asked for any, or a certificate sent after the agent
    declined compensation on the change-or-cancel condition (``declined_before(clause, i)``: the certain declines
    on the clause before message ``i``, as the record reads them; ``index``: the record's, with each message and
    sentence lowercased once, whose gate (``_gate``) skips a message that cannot hold the words, and the calls by
    tool)."""
    v = vocabulary()
    index = index or TurnIndex(turns, ())
    sent_at = [t.index for t, _ in index.named(COMPENSATION_TOOL)]
    # each gate behind its bits of the message's one scan (``_message_scan``): most messages hold none of its words
    request, offer = gate_of(v.compensation_request, "user"), gate_of(v.compensation_offer, "assistant")
    # what comes first before the user asks: the agent's offer in words (a message its gate lets through), or the
    # certificate sent (its message offers nothing in words after it)
    sent = sent_at[0] if sent_at else None
    offered = index.saying(v.compensation_offer, offer, "assistant")
    # the user's first request, read only before the last of those: one after it comes after each of them, as none
    # at all does (most conversations hold neither, and each request read blanks and reads a message)
    last = max(offered[-1].index if offered else -1, -1 if sent is None else sent)
    asked = None
    for t in index.saying(v.compensation_request, request, "user") if last >= 0 else ():
        if t.index >= last:
            break
        if asks_compensation(v.compensation_request, t.text):
            asked = t.index
            break
    until = min((i for i in (asked, sent) if i is not None), default=None)
    for t in offered:
        if until is not None and t.index >= until:
            break
        s = offer_said(t, index)
        if s is not None:
            return Violation("compensation_asked", t.index, f"compensation offered before the user asked for "
                             f"any: {excerpt_of(s, 120)!r}")
    if sent is not None and sent == until:
        return Violation("compensation_asked", sent, "a certificate sent before the user asked for compensation")
    # the condition the agent stated is unmet where nothing was changed or cancelled (read only where a certificate
    # was sent: most conversations send none)
    if sent is not None and not any(c.name in CHANGE_OR_CANCEL for _, c in index.calls) \
            and "declines_compensation" in v.kinds:
        said = declined_before("declines_compensation", sent)
        if said:
            return Violation("compensation_asked", sent, f"a certificate sent after the agent declined it at message "
                             f"{said[0].message_index} ({said[0].excerpt[:100]!r})")
    return None


