"""One scan of a message for every pattern the record's per-message readers gate it on (#47 round 7).

The claims (each claim kind's patterns), the requests (the catalog's words for each write), the precondition
facts (the cabin rule misstated, a tier claimed, compensation raised or offered, a want to keep the reservation
or a change named) and compensation unasked each tested every message against their own patterns' gates
(``_gate``): a substring test of the whole text for each word, most of which fail. One Aho-Corasick scan of the
lowered message for the rarest words of all the patterns read in that speaker's messages (``_gate.scanned_each``:
the agent's, the user's, each its own scan, whose words are rarer in it) costs about what one reader's scan did,
and its answer rules a pattern out where none of its rarest words occurs: a looser necessary condition than the
pattern's own gate, which a reader still tests where the pattern's bit is set (the same answer as the gate
alone). A pattern with a second requirement of few long words has its bit only where both occur
(``scanned_paired``). The scans are built once per catalog; their answers are kept per record (``TurnIndex.scanned``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Literal

from conversation_reading._claims import checkers, claim_kinds
from conversation_reading._gate import (
    Requirement,
    _words_in,
    needs,
    rarity,
    scanned_each,
    word_bits,
)
from conversation_reading._invented_policy import GATED as INVENTION_GATED
from conversation_reading._vocabulary import vocabulary


@cache
def changes(change: str, cancel: str) -> re.Pattern[str]:
    """The catalog's words for a change or a cancellation, one pattern (compiled once per catalog): a want to keep
    the reservation is one named only under a negation (``_precondition_facts.stated_wants``)."""
    return re.compile(change + "|" + cancel, re.IGNORECASE)


Speaker = Literal["assistant", "user"]


def gated_patterns(said_by: Speaker) -> tuple[re.Pattern[str], ...]:
    """The patterns the scan of ``said_by``'s messages answers for, in its bits' order: of the agent's, each claim
    kind's with a checker (``_claim_scan``), the cabin rule misstated, a tier claimed, compensation's words,
    compensation offered, the decline classes (``_units.Units.may_decline``), the workaround offers (``_offer_reads``) and invented policy's
    (``_invented_policy.GATED``); of the user's, each write's request words, compensation asked for, the reservation kept
    and a change or cancellation named."""
    v = vocabulary()
    if said_by == "assistant":
        kinds, check = claim_kinds()[0], checkers()
        return (*(p for kind in kinds if kind.name in check for p in kind.patterns), v.false_cabin_rule, v.tier_claim,
                v.requests["send_certificate"], v.compensation_offer, v.decline, v.condition,
                *(offer.pattern for offers in v.offers.values() for offer in offers), *INVENTION_GATED)
    return (*v.requests.values(), v.compensation_request, v.keeps_reservation,
            changes(v.requests["update_reservation_flights"].pattern, v.requests["cancel_reservation"].pattern))


# A second requirement only of at most this many words, each at least this long: a short word ("to", "no ") or a
# broad alternation ("booking", "flight", "reservation", "trip"; "you are", "as a", ...) occurs in most of the
# agent's messages, so it rules little out, and each match is a step of the scan's loop in Python (#47)
_PAIRED_SHORTEST = 4
_PAIRED_WORDS = 3


def _implied(rarest: Requirement, other: Requirement) -> bool:
    """Whether a word of ``other`` occurs wherever a word of ``rarest`` does (each of its words holds one: "your
    booking", " booking"; or it is ``rarest``): as a second requirement it would rule nothing more out."""
    words = _words_in(other)
    return all(any(w in v for w in words) for v in _words_in(rarest))


def scanned_paired(patterns: tuple[re.Pattern[str], ...]) -> Callable[[str], int]:
    """``_gate.scanned_each`` of ``patterns`` (bit ``i``: a word of pattern ``i``'s rarest requirement occurs), where
    a pattern with a second requirement of few long words (``_PAIRED_WORDS``), the rarest of them, has its bit set
    only where a word of each occurs: both are needed, so the condition is still necessary, and it rules out the
    messages holding a common word of one alone ("upgrade" without "only": #47, a claim kind's gate was tested on
    about 2.7 agent messages a trajectory where it held on 0.04). A second requirement's words set bit ``n + i``."""
    bits: dict[str, int] = {}
    always = second = 0  # the patterns that need nothing; those with a second requirement
    n = len(patterns)
    for i, p in enumerate(patterns):
        required = needs(p)
        rarest = max(required, key=rarity, default=None)
        if rarest is None:
            always |= 1 << i
            continue
        for word in _words_in(rarest):
            bits[word] = bits.get(word, 0) | 1 << i
        other = max((r for r in required if len(_words_in(r)) <= _PAIRED_WORDS
                     and min(map(len, _words_in(r))) >= _PAIRED_SHORTEST and not _implied(rarest, r)),
                    key=rarity, default=None)
        if other is not None:
            second |= 1 << i
            for word in _words_in(other):
                bits[word] = bits.get(word, 0) | 1 << (n + i)
    if not second:
        return scanned_each(patterns)  # none paired (the user's patterns): the same answer without the masks
    found_in = word_bits(bits, always)
    low = (1 << n) - 1

    def scanned(s: str) -> int:
        found = found_in(s)
        # a paired pattern's bit stands only where its second requirement's (``n`` above it) is set too
        return found & ~(second & ~(found >> n)) & low

    return scanned


# By speaker: (the catalog's claim kinds and vocabulary it was built for, the scan, each pattern's bits by its
# identity); an entry keeps its patterns (``gated_patterns``), so their ids are not reused while it is held
_SCANS: dict[str, tuple[tuple[object, object], tuple[re.Pattern[str], ...], Callable[[str], int], dict[int, int]]] = {}


def message_scan(said_by: Speaker) -> tuple[Callable[[str], int], dict[int, int]]:
    """The scan of a lowered message of ``said_by`` (``scanned_paired`` of ``gated_patterns``) and each pattern's bits in
    its answer, by the pattern's ``id``: an answer sharing no bit with a pattern's holds no word its gate needs."""
    built_for = (claim_kinds()[0], vocabulary())
    held = _SCANS.get(said_by)
    if held is None or held[0][0] is not built_for[0] or held[0][1] is not built_for[1]:
        patterns = gated_patterns(said_by)
        bits: dict[int, int] = {}
        for i, p in enumerate(patterns):
            bits[id(p)] = bits.get(id(p), 0) | 1 << i
        held = _SCANS[said_by] = (built_for, patterns, scanned_paired(patterns), bits)
    return held[2], held[3]


def gate_of(pattern: re.Pattern[str], said_by: Speaker) -> tuple[Callable[[str], int], int]:
    """The scan of ``said_by``'s messages and ``pattern``'s bits in its answer (``TurnIndex.may_say``); every bit
    (-1) for a pattern that scan does not answer for."""
    scan, bits = message_scan(said_by)
    return scan, bits.get(id(pattern), -1)


def invention_bits() -> int:
    """The bits of ``_invented_policy.GATED`` in the answer of the scan of the agent's messages (``gate_of``): an answer
    sharing none holds no word ``invention``'s gate needs, in any sentence of the message."""
    found = 0
    for pattern in INVENTION_GATED:
        found |= gate_of(pattern, "assistant")[1]
    return found


__all__ = ["Speaker", "changes", "gate_of", "invention_bits", "gated_patterns", "message_scan", "scanned_paired"]
