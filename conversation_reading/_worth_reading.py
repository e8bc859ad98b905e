"""Whether an agent message no decision follows is read for its consequential sentences at all
(``_sentences.consequential_sentences``): only for what stands on its own, or for an offer a later act may take."""

from __future__ import annotations

import re

from conversation_reading._gate import may_match, scanned_each
from conversation_reading._lowered_search import says
from conversation_reading._sentence_kinds import _OPTION, option

# an act the agent offers or promises to do ("I can cancel ...", "we'll rebook ..."): group 1
_ACT_SAID = r"(?:'ll| will| can| could| would be happy to| am able to| are able to| may)\s+(?:\w+\s+){0,2}?" \
    r"(cancel\w*|chang\w*|modif\w*|upgrad\w*|rebook\w*|switch\w*|mov\w*|transfer\w*|issu\w*|send\w*|" \
    r"refund\w*|add\w*|book\w*|escalat\w*|process\w*)"
_ACT = re.compile(r"\b(?:I|we)" + _ACT_SAID, re.IGNORECASE)
# its twin over an ASCII text's lowercase led by the subject's letter, the boundary tested behind it: the engine skips
# to the next "i" or "w", not trying the boundary at every position (half the scan of a message, #47)
_ACT_LOWERED = re.compile(r"(?:i(?<=\bi)|w(?<=\bw)e)" + _ACT_SAID)
# what counts without the user's decision following it: invented policy, a taken offer; its plain words apart
# (a substring test of the lowercase where the gate applies: the same answer as the alternation's scan)
_STANDS_ALONE_WORDS = ("exception", "team", "department", "desk", "insurance")
_IF_THEN_ACTS = r"\b[^.!?\n]{0,60}\b(?:modif|chang|cancel)"  # what follows the "if", in each scan below
_STANDS_ALONE = re.compile("|".join((*_STANDS_ALONE_WORDS, r"\bif" + _IF_THEN_ACTS)), re.IGNORECASE)
_IF_ACTS = re.compile(r"\bif" + _IF_THEN_ACTS, re.IGNORECASE)
# its twin over an ASCII text's lowercase, the boundary tested behind the "if": the engine skips from "if" to "if" (#47)
_IF_ACTS_LOWERED = re.compile(r"if(?<=\bif)" + _IF_THEN_ACTS)
# one scan of a lowercase for them all (``_gate.scanned_each``): bit 1 where a plain word is in it (its rarest words
# are those words); bits 2, 4, 8 where a rarest word of the gate of the "if" scan, of an option's, of an act's is. A
# gate's substring tests of the whole message (an act's: sixteen phrases) cost more than the one scan (#47)
_WORTH_SCAN = scanned_each((re.compile("|".join(_STANDS_ALONE_WORDS)), _IF_ACTS, _OPTION, _ACT))


def worth_reading(text: str, acts_follow: bool, lowered: str, gated: bool) -> bool:
    """A message no decision follows is read only for what stands on its own: invented policy or an insurance
    waiver, a promise on a condition, or an offer a later write or transfer may take (``acts_follow``). ``lowered``,
    ``gated``: the record's ``TurnIndex.lowered`` of the text (once a message); each scan gated (``_gate``), where the
    one scan of the lowercase (``_WORTH_SCAN``) found its words, then over it (``_lowered_search``)."""
    if not gated:
        return _STANDS_ALONE.search(text) is not None or acts_follow and (
            says(_OPTION, text, None) or says(_ACT, text, None))
    low, found = lowered if text.isascii() else None, _WORTH_SCAN(lowered)
    if found & 1 or found & 2 and may_match(_IF_ACTS, lowered, True) and (
            _IF_ACTS.search(text) if low is None else _IF_ACTS_LOWERED.search(low)) is not None:
        return True
    # an option only opens the text (``_OPTION``'s ``^``): ``option`` tests its first character before the gate
    return acts_follow and bool(found & 4 and option(text, lowered) is not None
                                or found & 8 and may_match(_ACT, lowered, True)
                                and (_ACT.search(text) if low is None else _ACT_LOWERED.search(low)) is not None)


__all__ = ["worth_reading"]
