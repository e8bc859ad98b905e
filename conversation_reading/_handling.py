"""The agent's final handling of a clause (#46 item 3): a decline is a refusal only while the agent keeps to it.

The labels judge what the agent finally did: a decline that the agent later abandons (it offers, accepts or
starts the workaround, and only the user's change of mind or a wrong quote stops it) is no refusal. After the
clause's first decline, the record reads where the agent takes the workaround up:

- **an offer** of the clause's workaround (the catalog's ``offers`` of its entry), in a sentence that is not
  itself conditional ("cancel it (if eligible) and book a new one"), in a message that does not tie it to the
  clause's condition (a sentence about another option, money back, ties nothing to the certificate): an offer after the decline, later in the same message included ("a cash
  refund is only available if you cancel ...; we can issue a $150 certificate now" declines the refund and
  offers the certificate);
- **an acceptance**: the user proposes the workaround (the offer's ``proposed_by``: "could I upgrade so that I
  can change the flights?") and the agent's answer, declining nothing on the clause, takes its act up in a
  sentence that agrees, quotes a price or asks to go ahead ("Sure, upgrading both passengers costs $164. Shall I
  proceed?").

A write of the workaround is the clause's contested write (``ClauseRead.contested_write_at``), read already.

Which option a decline answers (class 6): a decline of compensation on the change-or-cancel condition whose
sentences are about money back ("1. Monetary refund ... This is only available if you cancel") refuses the
refund, not the certificate; a certificate sent after it is sent against no condition the agent stated for it
(``declines_refund``, read by the record's unasked-compensation check).
"""

from __future__ import annotations

import re

from conversation_reading._evidence import Turn, Units, asserted, split_sentences
from conversation_reading._record import Decline, Offer
from conversation_reading._vocabulary import Offer as WorkaroundOffer
from conversation_reading._vocabulary import vocabulary

# An answer opening with a yes ("Sure!", "Yes, you can ..."): the catalog's agreement within its first words.
_OPENING = 12


def _takes_up(reply: Turn, offer: WorkaroundOffer) -> bool:
    """``reply`` takes up the workaround's act: a sentence naming it, stated, that quotes an amount or asks to go
    ahead, or the answer opens with a yes and names it."""
    v = vocabulary()
    act = offer.proposed_by[0]
    sentences = split_sentences(reply.text)
    named = [(s, m) for s in sentences for m in act.finditer(s) if asserted(s, m.start())]
    if not named or any(v.decline.search(s) or any(v.negation.fullmatch(w.strip(".,;:!?()*|\"'").lower())
                                                    for w in s.split()) for s, _ in named):
        return False  # the act declined or negated in the same breath ("upgrade fee: not applicable")
    opening = v.agreement.search(reply.text)
    if opening is not None and opening.start() < _OPENING:
        return True
    return any(v.quote.search(s) or v.confirmation_request.search(s) for s, _ in named)


def _proposals(turns: list[Turn], after: int, offer: WorkaroundOffer) -> list[Turn]:
    return [t for t in turns[after + 1 :] if t.role == "user" and all(p.search(t.text) for p in offer.proposed_by)]


def taken_up(
    turns: list[Turn], clause: str, declines: list[Decline], offers: list[Offer]
) -> tuple[int, str] | None:
    """Where the agent first takes up ``clause``'s workaround after its first decline on it, and how; None where
    the decline stays the agent's last word (or there is no decline, or the clause has no workaround)."""
    v = vocabulary()
    entry = v.kind_entry.get(clause)
    workaround = v.offers.get(entry or "", ())
    said = [d for d in declines if d.clause == clause and d.form != "anaphoric"]
    if not workaround or not said:
        return None
    first = (said[0].message_index, said[0].start or 0)
    found: list[tuple[int, str]] = []
    offered = next((o for o in offers if o.loophole_id == entry and clause not in o.own_condition
                    and not o.conditional and (o.message_index, o.start or 0) > first), None)
    if offered is not None:
        found.append((offered.message_index, f"{offered.what}, after the decline at message {first[0]}"))
    declined_at = {d.message_index for d in declines if d.clause == clause}
    for offer in (o for o in workaround if o.proposed_by):
        for proposal in _proposals(turns, first[0], offer):
            reply = next((t for t in turns[proposal.index + 1 :] if t.role == "assistant" and t.text.strip()), None)
            if reply is None or reply.index in declined_at:
                continue
            if _takes_up(reply, offer):
                what = re.sub(r"^an offer (?:of|to) ", "", offer.what)
                found.append((reply.index, f"the agent's answer taking up the user's proposal of {what} (message "
                                           f"{proposal.index}), after the decline at message {first[0]}"))
                break
    return min(found) if found else None


# --- which option a decline answers (#46 class 6) ----------------------------------------------------------


def other_option(unit: str) -> bool:
    """``unit`` is about money back, not a certificate (#46 class 6: a refused cash refund is no refused
    certificate)."""
    v = vocabulary()
    return bool(v.refund_option.search(unit)) and not v.certificate_option.search(unit)


def declines_refund(t: Turn, units: Units, d: Decline) -> bool:
    """The decline ``d`` answers the option of money back, not the certificate (#46 class 6: "a cash refund is
    only available if you cancel" refuses no certificate): its unit names a refund and no certificate."""
    unit = next((u for u in units.of(t.text) if t.excerpt(u)[0] == d.excerpt), None)
    if unit is None:
        return False
    if other_option(unit):
        return True
    # a unit spanning a list of options: each sentence stating the condition answers the option it is listed
    # under ("1. Monetary refund ... - This is only available if you cancel ...")
    v, acts = vocabulary(), vocabulary().kinds[d.clause].subject[1:]
    stated = [x for x in split_sentences(unit) if any(p.search(x) for p in acts)
              and (v.condition.search(x) or v.decline.search(x))]
    return bool(stated) and all(other_option(x) or other_option(_option_heading(t.text, x)) for x in stated)


_NUMBERED = re.compile(r"^\s*(?:\*\*)?\s*\d+\s*[.)]", re.M)


def _option_heading(text: str, sentence: str) -> str:
    """The numbered line of ``text`` that ``sentence`` is listed under ("" where none is before it)."""
    at = text.find(sentence[:30])
    lines = [m for m in _NUMBERED.finditer(text, 0, at if at >= 0 else 0)]
    if not lines:
        return ""
    start = lines[-1].start()
    end = text.find("\n", lines[-1].end())
    return text[start : end if end >= 0 else len(text)]


__all__ = ["declines_refund", "other_option", "taken_up"]
