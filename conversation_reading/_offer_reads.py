"""The workaround offers the agent made (the record's ``offers``): every catalog offer an agent message makes, with
the clauses whose condition the message states (``_reading``'s record lists them)."""

from __future__ import annotations

import re

from conversation_reading._evidence import Turn, _offers, conditions, split_sentences
from conversation_reading._gate import holds, holds_any, needs
from conversation_reading._handling import other_option
from conversation_reading._record import Offer
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units
from conversation_reading._vocabulary import Vocabulary, vocabulary

# every offer's pattern, by the vocabulary's identity (it holds the vocabulary, so the id is not reused): one gate
# for a message (``holds_any``, a tuple held for good)
_OFFERED: dict[int, tuple[Vocabulary, tuple[re.Pattern[str], ...]]] = {}


def _offered(v: Vocabulary) -> tuple[re.Pattern[str], ...]:
    held = _OFFERED.get(id(v))
    if held is None or held[0] is not v:
        held = _OFFERED[id(v)] = (v, tuple(offer.pattern for offers in v.offers.values() for offer in offers))
    return held[1]


def offers_in(
    turns: list[Turn], units: Units, index: TurnIndex, clauses: list[str], gated: bool = True
) -> list[Offer]:
    """Each offer an agent message makes (its first sentence making it), by message, then loophole (a loophole's
    offers in the catalog's order). A message is read only where one offer's pattern could match it (``_gate``):
    most hold the words of none (``gated=False``: each offer's own gate only, the reference this is tested
    against)."""
    v = vocabulary()
    offered = holds_any(_offered(v))
    found = []
    for t in turns:
        if t.role != "assistant" or not t.text:
            continue
        lowered = units.lowered(t.text)
        if gated and lowered is not None and not offered(lowered):
            continue
        sentences = split_sentences(t.text)
        for loophole_id, offers in v.offers.items():
            for place, offer in enumerate(offers):
                needed = needs(offer.pattern)
                if lowered is None:
                    said = next((s for s in sentences if _offers(offer, s)), None)
                elif not holds(needed, lowered):
                    continue
                else:  # each sentence gated too (a part of the message): most sentences lack the offer's words
                    said = next((s for s, low in zip(sentences, index.sentences_lowered(t.text), strict=True)
                                 if holds(needed, low) and _offers(offer, s)), None)
                if said is None:
                    continue
                tied = [] if not offer.unless_conditioned_in_message else [
                    name for name in clauses if any(conditions(v.kinds[name], u) for u in units.of(t.text))]
                own = [name for name in clauses
                       if any(conditions(v.kinds[name], u) and not other_option(u) for u in units.of(t.text))]
                excerpt, start, end = t.excerpt(said)
                found.append(Offer(loophole_id=loophole_id, offer=place, what=offer.what, message_index=t.index,
                                   excerpt=excerpt, conditioned_on=tied, own_condition=own, start=start, end=end,
                                   conditional=any(v.hypothetical.fullmatch(w.strip(".,;:!?()*\"'").lower())
                                                   for w in said.split())))
    # a message's offers were found loophole by loophole, in the catalog's order: the sort keeps it
    return sorted(found, key=lambda o: (o.message_index, o.loophole_id))


__all__ = ["offers_in"]
