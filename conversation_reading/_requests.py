"""What the user asks for, in their own words (the catalog's ``requests``), read apart from what they pay with.

A certificate the user names as a means of payment or a balance they hold ("use my certificates first", "the
balances on my gift cards and certificates", "certificate_8045380") asks for no compensation: the payment
rules are a fact of the profile (``policy_model``'s payment limits), compensation is something owed. Reading the
two alike took a question about balances for a request for compensation, which hides compensation the agent
then offered unasked (#46 class 6: conditions misread). The vocabulary's ``payment_use`` names those clauses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from conversation_reading._evidence import Turn, excerpt_of, mentions
from conversation_reading._gate import holds, needs
from conversation_reading._lowered_search import matches, says
from conversation_reading._message_scan import message_scan
from conversation_reading._reading_memo import ReadingMemo
from conversation_reading._record import UserRequest
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units
from conversation_reading._vocabulary import vocabulary
from policy_model import COMPENSATION_TOOL


def _without_payment(text: str) -> str:
    lowered = text.lower()
    if "certificate" not in lowered:
        return text
    use = vocabulary().payment_use
    if not text.isascii():
        return use.sub(" ", text)
    # ``sub``'s matches, found by the pattern's lowercase twin over the ASCII text's lowercase (``_lowered_search``:
    # the same places, several times fewer instructions than the case-folding scan of every position)
    out: list[str] = []
    pos = 0
    for m in matches(use, text, lowered):
        out += (text[pos : m.start()], " ")
        pos = m.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


# three readers ask it of the same user messages (the requests, the stated wants, compensation unasked), and its
# scan is among the slowest of the catalog's: blanked once while one conversation is read (``ReadingMemo``)
_WITHOUT_PAYMENT: ReadingMemo[str, str] = ReadingMemo(_without_payment)
reading_payments = _WITHOUT_PAYMENT.reading


def without_payment(text: str) -> str:
    """``text`` with every clause naming a certificate as a means of payment or a held balance blanked out."""
    return _WITHOUT_PAYMENT(text)


def asks_compensation(pattern: re.Pattern[str], text: str) -> bool:
    """The user's ``text`` names compensation (``pattern``: the catalog's words for it) outside a negation and
    outside a clause naming a certificate as a means of payment."""
    return mentions(pattern, without_payment(text))


def user_requests(
    turns: list[Turn], units: Units, is_write: Callable[[str], bool], index: TurnIndex | None = None,
) -> list[UserRequest]:
    """The first user message asking for each of the domain's writes (the catalog's words for both domains;
    ``index``: the record's, whose one scan of each message, ``_message_scan``, rules most requests out)."""
    index = index or TurnIndex(turns, ())
    scan, bits = message_scan("user")
    words = [(tool, pattern, needs(pattern), bits.get(id(pattern), -1)) for tool, pattern in vocabulary().requests.items()
             if is_write(tool)]
    every = 0  # the bits of every request: a message whose scan sets none of them asks for no write
    for *_, bit in words:
        every |= bit
    found: dict[str, UserRequest] = {}
    for t, _, gated, scanned in index.spoken("user", scan):
        if gated and not scanned & every or not t.text.strip():
            continue  # (a text the gate applies to is one ``Units.lowered`` gates too: its lowercase is as foldless)
        lowered = units.lowered(t.text)
        # the requests whose rarest words occur (``scanned_each``), a looser necessary condition than each gate
        may = -1 if lowered is None else scanned
        plain = lowered if lowered is not None and t.text.isascii() else None  # ``says``' lowercase: of ASCII only
        for tool, pattern, needed, bit in words:  # the gate and a search first: most words are in no message at all
            if tool in found or (lowered is not None and not (may & bit and holds(needed, lowered))):
                continue
            if says(pattern, t.text, plain) and (
                    asks_compensation(pattern, t.text) if tool == COMPENSATION_TOOL else mentions(pattern, t.text)):
                found[tool] = UserRequest(tool=tool, message_index=t.index, excerpt=excerpt_of(t.raw))
        if len(found) == len(words):
            break  # each write asked for: a later message adds none (each tool keeps its first)
    return sorted(found.values(), key=lambda q: q.message_index)


__all__ = ["asks_compensation", "reading_payments", "user_requests", "without_payment"]
