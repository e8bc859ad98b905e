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
from typing import Any

from conversation_reading._evidence import Turn, excerpt_of, mentioned_in, mentions
from conversation_reading._gate import _c, _p, holds, needs
from conversation_reading._lowered_search import matches, says
from conversation_reading._message_scan import message_scan
from conversation_reading._reading_memo import ReadingMemo
from conversation_reading._record import UserRequest, built
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units, split_sentences
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


def _asks_in_words(pattern: re.Pattern[str], text: str, plain: str | None) -> bool:
    """``says(pattern, text, plain) and asks_compensation(pattern, text)``: a request needs a match in the text itself
    too, not only one the blanked clauses made. Asked after the request's own reading, where a text nothing was
    blanked in already has it (a match ``mentions`` finds in a sentence is one in the text, ``in_context``): the search
    of the text, a scan of all of it, was the request's search most of the time for an answer it already held."""
    blanked = without_payment(text)
    if not mentions(pattern, blanked):
        return False
    return (blanked is text and in_context(pattern)) or says(pattern, text, plain)


# Whether a pattern reads nothing outside its match but the word boundaries at its ends, by the pattern's identity
# (an entry keeps its pattern, so its id is not reused while it is held)
_IN_CONTEXT: dict[int, tuple[re.Pattern[str], bool]] = {}
_BOUNDARIES = (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY)


def _reads_only_boundaries(items: Any) -> bool:
    """No lookaround, anchor or back reference in a parsed pattern: only ``\\b`` and ``\\B`` look past a character."""
    for op, av in items:
        if op in (_c.ASSERT, _c.ASSERT_NOT, _c.GROUPREF, _c.GROUPREF_EXISTS) or op is _c.AT and av not in _BOUNDARIES:
            return False
        if isinstance(av, _p.SubPattern) and not _reads_only_boundaries(av):
            return False
        if isinstance(av, tuple | list) and not all(
                _reads_only_boundaries(x) for x in av if isinstance(x, _p.SubPattern)):
            return False
        if op is _c.BRANCH and not all(_reads_only_boundaries(x) for x in av[1]):
            return False
    return True


def in_context(pattern: re.Pattern[str]) -> bool:
    """Whether each match of ``pattern`` in a sentence of a text (``split_sentences``) is one in the text: a sentence is
    a part of the text whose neighbours there are blanks or sentence marks (no word character), and a pattern that
    looks past its match only by word boundaries (``\\b``, ``\\B``) sees the same there as at the sentence's ends.
    So ``mentions`` (a match in a sentence) implies ``says`` (one in the text)."""
    held = _IN_CONTEXT.get(id(pattern))
    if held is None or held[0] is not pattern:
        try:
            free = _reads_only_boundaries(_p.parse(pattern.pattern, pattern.flags))
        except Exception:  # noqa: BLE001 - a pattern the parser cannot take apart: searched first
            free = False
        held = _IN_CONTEXT[id(pattern)] = (pattern, free)
    return held[1]


def _mentioned(pattern: re.Pattern[str], text: str, index: TurnIndex) -> bool:
    """``mentions(pattern, text)``: a match in a sentence of ``text`` outside a negator's scope, each sentence's lowercase
    the record's (``index``) and an ASCII sentence searched by the pattern's twin (``_lowered_search.twin``)."""
    return mentioned_in(pattern, zip(split_sentences(text), index.sentences_lowered(text), strict=True),
                        index.lowered(text)[1])


# each request's (tool, words, the gate's needs, bits in the user's scan), by the vocabulary and the scan they were
# read from (the program's own constants)
_WORDS: list[tuple[Any, Any, tuple[tuple[str, re.Pattern[str], Any, int], ...]]] = []


def _words(scan: Callable[[str], int], bits: dict[int, int]) -> tuple[tuple[str, re.Pattern[str], Any, int], ...]:
    v = vocabulary()
    if not _WORDS or _WORDS[0][0] is not v or _WORDS[0][1] is not scan:
        _WORDS[:] = [(v, scan, tuple((tool, pattern, needs(pattern), bits.get(id(pattern), -1))
                                     for tool, pattern in v.requests.items()))]
    return _WORDS[0][2]


def user_requests(
    turns: list[Turn], units: Units, is_write: Callable[[str], bool], index: TurnIndex | None = None,
) -> list[UserRequest]:
    """The first user message asking for each of the domain's writes (the catalog's words for both domains;
    ``index``: the record's, whose one scan of each message, ``_message_scan``, rules most requests out)."""
    index = index or TurnIndex(turns, ())
    scan, bits = message_scan("user")
    spoken = index.spoken("user", scan)
    seen = 0  # the bits any user message's scan sets (every bit where the gate does not apply to one)
    for _, _, gated, scanned in spoken:
        seen |= scanned if gated else -1
    # the writes among the requests a message may ask for: ``is_write`` (a chain of calls) not asked of the others,
    # most of the catalog's tools (those of the other domain, and words no message holds)
    words = [w for w in _words(scan, bits) if w[3] & seen and is_write(w[0])]
    every = 0  # the bits of every request: a message whose scan sets none of them asks for no write
    for *_, bit in words:
        every |= bit
    found: dict[str, UserRequest] = {}
    for t, _, gated, scanned in spoken:
        if gated and not scanned & every or not t.text.strip():
            continue  # (a text the gate applies to is one ``Units.lowered`` gates too: its lowercase is as foldless)
        lowered = units.lowered(t.text)
        # the requests whose rarest words occur (``scanned_each``), a looser necessary condition than each gate
        may = -1 if lowered is None else scanned
        plain = lowered if lowered is not None and t.text.isascii() else None  # ``says``' lowercase: of ASCII only
        excerpt: str | None = None  # the message's, written once for each write it asks for
        for tool, pattern, needed, bit in words:  # the gate and a search first: most words are in no message at all
            if tool in found or (lowered is not None and not (may & bit and holds(needed, lowered))):
                continue
            if tool == COMPENSATION_TOOL:  # its words read in the text less its payment clauses
                said = _asks_in_words(pattern, t.text, plain)
            else:  # a match ``mentions`` finds in a sentence is one in the text (``in_context``): no search first
                said = (in_context(pattern) or says(pattern, t.text, plain)) and _mentioned(pattern, t.text, index)
            if said:
                excerpt = excerpt_of(t.raw) if excerpt is None else excerpt
                found[tool] = built(UserRequest, {"tool": tool, "message_index": t.index, "excerpt": excerpt})
        if len(found) == len(words):
            break  # each write asked for: a later message adds none (each tool keeps its first)
    return sorted(found.values(), key=lambda q: q.message_index)


__all__ = ["asks_compensation", "in_context", "reading_payments", "user_requests", "without_payment"]
