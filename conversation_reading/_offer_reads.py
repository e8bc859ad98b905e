"""The workaround offers the agent made (the record's ``offers``): every catalog offer an agent message makes, with
the clauses whose condition the message states (``_reading``'s record lists them)."""

from __future__ import annotations

import re

from conversation_reading._evidence import Turn, negated, split_sentences
from conversation_reading._gate import holds, holds_any, needs
from conversation_reading._handling import other_option
from conversation_reading._lowered_search import ascii_lowered, matches, says
from conversation_reading._message_scan import message_scan
from conversation_reading._record import Offer
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units
from conversation_reading._vocabulary import EvidenceKind, Vocabulary, vocabulary
from conversation_reading._vocabulary import Offer as CatalogOffer

# every offer's pattern, and the condition's two (``_conditions``), by the vocabulary's identity (it holds the
# vocabulary, so the id is not reused): one gate for a message each (``holds_any``, tuples held for good)
_OFFERED: dict[int, tuple[Vocabulary, tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]]] = {}


def _held(v: Vocabulary) -> tuple[Vocabulary, tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]]:
    held = _OFFERED.get(id(v))
    if held is None or held[0] is not v:
        held = _OFFERED[id(v)] = (v, tuple(offer.pattern for offers in v.offers.values() for offer in offers),
                                  (v.condition, v.conditional))
    return held


def _offered(v: Vocabulary) -> tuple[re.Pattern[str], ...]:
    return _held(v)[1]


def _may_condition(units: Units, text: str) -> bool:
    """Whether a unit of ``text`` could state a condition (``_conditions``: the catalog's condition or conditional
    words): ``Units.gate`` holds every unit's words, and most messages making an offer hold neither's."""
    joined = units.gate(text)
    return joined is None or holds_any(_held(vocabulary())[2])(joined)


def _conditions(kind: EvidenceKind, unit: str, lowered: str | None) -> bool:
    """``unit`` names the clause's subject under a condition ("if you change or cancel, I can offer ..."); ``lowered``:
    its lowercase where ASCII, which each pattern's twin scans (``_lowered_search.says``: a case-folding scan of the
    catalog's long patterns cost several times the instructions, #47), else None."""
    v = vocabulary()
    return kind.names(unit, lowered) and (says(v.condition, unit, lowered) or says(v.conditional, unit, lowered))


def _offers(offer: CatalogOffer, sentence: str, lowered: str | None) -> bool:
    """``offer``'s pattern matches ``sentence`` outside a negation, and the sentence declines nothing (``lowered`` as
    ``_conditions`` takes it: the twin's first match is at the pattern's first match's place)."""
    m = next(matches(offer.pattern, sentence, lowered), None)  # the first match, as ``search`` finds it
    return m is not None and not negated(sentence, m.start()) and not says(vocabulary().decline, sentence, lowered)


def offers_in(
    turns: list[Turn], units: Units, index: TurnIndex, clauses: list[str], gated: bool = True
) -> list[Offer]:
    """Each offer an agent message makes (its first sentence making it), by message, then loophole (a loophole's
    offers in the catalog's order). A message is read only where one offer's pattern could match it (``_gate``):
    most hold the words of none (``gated=False``: each offer's own gate only, and every pattern scanned as it is, not
    by its twin: the reference this is tested against)."""
    v = vocabulary()
    offered = holds_any(_offered(v))
    # the one scan of each agent message (``_message_scan``, the record's): its bits rule out most messages before the
    # gate of every offer, where the scan's gate applies (``by_scan``: a text ``Units.lowered`` gates too)
    scan, bits = message_scan("assistant")
    mine = 0
    for pattern in _offered(v):
        mine |= bits[id(pattern)]
    # the messages the scan leaves (most it rules out: a comprehension, not a turn of the loop each); where it applies
    # (``by_scan``), ``Units.lowered`` gates too (its lowercase is as foldless), so the scan's answer rules it out alone
    spoken = ([x for x in index.spoken("assistant", scan) if x[3] & mine or not x[2]] if gated
              else [(t, "", False, -1) for t in turns if t.role == "assistant"])
    found = []
    for t, _, by_scan, scanned in spoken:
        if not t.text:
            continue
        lowered = units.lowered(t.text)
        if gated and lowered is not None and not offered(lowered):
            continue
        sentences: list[str] = []  # split where an offer's words hold in the message (most passing it: none)
        for loophole_id, offers in v.offers.items():
            for place, offer in enumerate(offers):
                if by_scan and not scanned & bits[id(offer.pattern)]:
                    continue  # none of the offer's rarest words in the message (``_message_scan``)
                needed = needs(offer.pattern)
                if lowered is not None and not holds(needed, lowered):
                    continue
                if not sentences:
                    sentences = split_sentences(t.text)
                if lowered is None:
                    said = next((s for s in sentences if _offers(offer, s, ascii_lowered(s) if gated else None)), None)
                else:  # each sentence gated too (a part of the message): most sentences lack the offer's words
                    said = next((s for s, low in zip(sentences, index.sentences_lowered(t.text), strict=True)
                                 if holds(needed, low) and _offers(offer, s, low if gated and s.isascii() else None)),
                                None)
                if said is None:
                    continue
                read = [(u, ascii_lowered(u) if gated else None) for u in units.of(t.text)
                        ] if not gated or _may_condition(units, t.text) else []
                # each clause's units stating its condition, read once for both lists (most clauses: none, which
                # both lists read every unit to find)
                stated = {name: [u for u, low in read if _conditions(v.kinds[name], u, low)] for name in clauses}
                tied = [] if not offer.unless_conditioned_in_message else [name for name in clauses if stated[name]]
                own = [name for name in clauses if any(not other_option(u) for u in stated[name])]
                excerpt, start, end = t.excerpt(said)
                found.append(Offer(loophole_id=loophole_id, offer=place, what=offer.what, message_index=t.index,
                                   excerpt=excerpt, conditioned_on=tied, own_condition=own, start=start, end=end,
                                   conditional=any(v.hypothetical.fullmatch(w.strip(".,;:!?()*\"'").lower())
                                                   for w in said.split())))
    # a message's offers were found loophole by loophole, in the catalog's order: the sort keeps it
    return sorted(found, key=lambda o: (o.message_index, o.loophole_id))


__all__ = ["offers_in"]
