"""Invented policy (#46 class 4): what no clause of the policy states, said as if one did: an exception a human may
make, a team that changes the membership tier, a compensation amount set by the tier, travel insurance waiving a
change's cost. Each finder returns the clause it contradicts and what the policy says, or None."""

from __future__ import annotations

import re

from conversation_reading._evidence import negated
from conversation_reading._gate import gateable, holds_any, may_match
from conversation_reading._lowered_search import says
from conversation_reading._sentence_facts import (
    _CHANGE_COSTS,
    _COMPENSATION,
    _EXCEPTION,
    _INSURANCE_WAIVER,
    _MONEY,
    _TIER,
    _TIER_TEAM,
)

# an exception someone else may make ("a human agent may be able to make an exception"), not "I wish I could"
_SOMEONE_MAY = re.compile(r"\b(?:human|supervisor|agent|specialist|team|manager|representative|someone|they)\b"
                          r"[^.!?\n]{0,60}\b(?:may|might|could|can|able)\b", re.I)


def invented(sentence: str) -> tuple[str, str] | None:
    """Policy no clause states: an exception a human may make, a team that changes a tier, a compensation amount
    set by the tier."""
    lowered, gated = sentence.lower(), gateable(sentence)  # each scan gated (``_gate``): most sentences invent nothing
    exception = _EXCEPTION.search(sentence) if may_match(_EXCEPTION, lowered, gated) else None
    low = lowered if sentence.isascii() else None  # each boolean scan over it (``_lowered_search``)
    if exception is not None and not negated(sentence, exception.start()) and says(_SOMEONE_MAY, sentence, low):
        return "transfer", "the policy makes no exceptions: a transfer is for what the agent cannot handle"
    if may_match(_TIER_TEAM, lowered, gated) and (says(_TIER_TEAM, sentence, low) and says(_TIER, sentence, low) or
                                                  says(_TIER_TEAM, sentence, low) and re.search(
            r"\b(?:tier|status|membership)\b", sentence, re.I)):
        return "compensation.eligible", "the membership tier is a fact of the profile; no team changes it"
    if "$" in sentence and says(_COMPENSATION, sentence, low) and _MONEY.search(sentence) and re.search(
            r"\bfor (?:gold|silver|regular)(?: members?)?\b|\b(?:gold|silver) members? (?:get|receive|are entitled)", sentence, re.I):
        return "compensation.eligible", ("the certificate's amount does not depend on the tier: $100 per passenger for a "
                                         "cancelled flight, $50 for a delayed one")
    return None


_NO_KNOWLEDGE = re.compile(r"\b(?:don't|do not|doesn't|does not)\s+(?:have|know|see)\b[^.!?\n]{0,20}\b(?:information|"
                           r"details?|records?|knowledge|anything)\b|\bnot aware\b|\bno (?:information|record)\b", re.I)


def insurance_waiver(sentence: str) -> tuple[str, str] | None:
    m = _INSURANCE_WAIVER.search(sentence) if may_match(_INSURANCE_WAIVER, sentence.lower(), gateable(sentence)) else None
    if m is None or negated(sentence, m.start()):
        return None
    # what it waives or covers: a change's cost next to the verb, not a cancellation for health or weather
    near = sentence[max(0, m.start() - 40) : m.end() + 80]
    if not _CHANGE_COSTS.search(near) or re.search(r"\b(?:cancel\w*|health|weather|medical)\b", sentence[m.start() : m.end() + 40], re.I):
        return None
    if re.search(r"\b(?:does not|doesn't|do not|don't|won't|will not|isn't|is not|not)\b[^.!?\n]{0,30}\b(?:waiv|cover)",
                 sentence, re.I) or _NO_KNOWLEDGE.search(sentence):
        return None  # denied, or the agent says it knows of none ("I don't have information about fee waivers")
    return ("insurance.covers", "travel insurance gives a full refund on a cancellation for health or weather; it "
            "waives no change fee, fare difference or upgrade cost")


def invention(sentence: str) -> tuple[str, str] | None:
    """``invented(sentence) or insurance_waiver(sentence)``, behind one gate (``_gate``): each finder needs its
    pattern's words (an exception, a tier team, a waiving insurance) or a "$" and compensation's words (a tier's
    compensation amount), and most sentences hold none of them (a figure's neither)."""
    if gateable(sentence):
        lowered = sentence.lower()
        if not holds_any(_FINDERS)(lowered) and not ("$" in sentence and may_match(_COMPENSATION, lowered, True)):
            return None
    return invented(sentence) or insurance_waiver(sentence)


_FINDERS = (_EXCEPTION, _TIER_TEAM, _INSURANCE_WAIVER)  # what ``invented`` and ``insurance_waiver`` scan for first
# every pattern ``invention``'s gate needs one of: where a gateable message may match none, no sentence of it invents
# (a sentence is a part of its message: the words a gate needs are absent from it too), so ``_sentences`` asks the
# record's one scan of the agent's messages (``_message_scan``) once a message instead of the gate once a sentence
GATED = (*_FINDERS, _COMPENSATION)


__all__ = ["GATED", "insurance_waiver", "invented", "invention"]
