"""What kind of consequential sentence an agent sentence is (``_sentences``): an option, a decline, a figure, a
question or a request for confirmation, a promise, an offer, a rule claim, a fact claim, or none."""

from __future__ import annotations

import re
from typing import Any

from conversation_reading._bag_fees import _FREE, stated_free
from conversation_reading._gate import gateable, holds, may_match, needs, scanned_each
from conversation_reading._lowered_search import says as found
from conversation_reading._route_claims import LED_ROUTE
from conversation_reading._route_claims import ROUTE as _ROUTE
from conversation_reading._sentence_facts import (
    _CABIN,
    _CANCEL,
    _COMPENSATION,
    _CONFIRM,
    _FLIGHTS,
    _MONEY,
    _OFFER,
    _PROMISE,
    _REFUND,
    _RULE,
)

# an option in a list ("1. **Cancel the reservation** — ..."): an offer of that act, whatever the line says of it
_OPTION = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022]|option \w+:?)\s*\**\s*(?:you (?:can|could) )?"
                     r"(cancel\w*|chang\w*|modif\w*|upgrad\w*|rebook\w*|switch\w*|transfer\w*|keep\w*)\b", re.I)
# what an option's line opens with past its blanks, as the engine reads ``_OPTION``'s first item: a digit
# (``\d``: ``str.isdecimal``), a bullet, or the "o" of "option" (which folds to "O" alone); ``\s`` is ``str.isspace``
_OPTION_OPENS = frozenset("-*\u2022oO")


def option(sentence: str, lowered: str | None) -> re.Match[str] | None:
    """``_OPTION.match(sentence)``; ``lowered``: the sentence's lowercase where its gate applies (``gateable``), else
    None. Not tried where the first character past the blanks opens no option, nor where the gate (``_gate``) rules
    the act out: a bulleted line naming no act ("*   Flight 1: HAT023") costs the engine thousands of instructions
    of backtracking over its blanks (#47)."""
    first = sentence[:1]
    if first.isspace():
        first = sentence.lstrip()[:1]
    if not (first in _OPTION_OPENS or first.isdecimal()) or (lowered is not None and not may_match(_OPTION, lowered, True)):
        return None
    return _OPTION.match(sentence)


def kind(sentence: str, decline: re.Pattern[str], gate: tuple[Any, ...], declines: bool = True) -> str | None:
    """The sentence's kind (None: not consequential). ``declines``: the decline's gate holds on the sentence's
    message (a sentence is a part of it). Each pattern's gate (``_gate``) first, a scan only where it may match;
    the scan of an ASCII sentence over its lowercase (``_lowered_search``)."""
    lowered = sentence.lower()
    if sentence.isascii():  # ``gateable`` without its call (most sentences)
        ascii_: str | None = lowered
        gated = True
    else:
        ascii_, gated = None, gateable(sentence)  # the gates below rule a sentence out only where they apply
    first = sentence[:1]  # ``option``'s first test, without its call: most sentences open no option
    if first.isspace():
        first = sentence.lstrip()[:1]
    if (first in _OPTION_OPENS or first.isdecimal()) and option(sentence, lowered if gated else None):
        return "offer"
    if declines and (not gated or holds(gate, lowered)) and found(decline, sentence, ascii_):  # most say no decline
        return "decline"
    if "$" in sentence and _MONEY.search(sentence):  # ``_MONEY`` matches a "$"
        return "figure"
    last = sentence[-1:]  # a question's mark, without ``rstrip``'s call where the sentence ends in no blank (all split)
    if last == "?" or last.isspace() and sentence.rstrip().endswith("?"):
        return "confirmation_request" if _says(_CONFIRM, sentence, lowered, ascii_, gated) else (
            "offer" if _says(_OFFER, sentence, lowered, ascii_, gated) else "question")
    # the statement kinds' patterns that could match (a bit each, ``_STATEMENT_WORDS``' order): most sentences none
    may = _STATEMENT_SCAN(lowered) if gated else -1
    if not may & _STATEMENTS:
        return None  # no word any kind below needs (most sentences): one scan for them all

    # each test below ``_says(pattern, sentence, lowered, ascii_, gated)`` written out: a closure over the sentence
    # made a cell of each of its four names on every call, most of which return above (#47)
    if may & _PROMISES and may & _PROMISED and _says(_PROMISE, sentence, lowered, ascii_, gated) and (
            _says(_COMPENSATION, sentence, lowered, ascii_, gated) or _says(_CANCEL, sentence, lowered, ascii_, gated)
            or _says(_REFUND, sentence, lowered, ascii_, gated)):
        return "promise"
    if may & _OFFERS and may & _OFFERED and _says(_OFFER, sentence, lowered, ascii_, gated) and (
            _says(_CANCEL, sentence, lowered, ascii_, gated) or _says(_CABIN, sentence, lowered, ascii_, gated)
            or _says(_FLIGHTS, sentence, lowered, ascii_, gated) or _says(_COMPENSATION, sentence, lowered, ascii_, gated)):
        return "offer"
    if may & _RULES and _says(_RULE, sentence, lowered, ascii_, gated):
        return "rule_claim"
    if may & _CONFIRMS and _says(_CONFIRM, sentence, lowered, ascii_, gated):
        return "confirmation_request"
    if may & _FREES and stated_free(sentence) or may & _ROUTES and (gated or "from" in lowered or "origin" in lowered) \
            and LED_ROUTE.search(sentence):
        return "fact_claim"  # a bag fee of nothing, in words; a reservation's route
    return None


def _says(pattern: re.Pattern[str], sentence: str, lowered: str, ascii_: str | None, gated: bool) -> bool:
    """``pattern`` is in ``sentence``: its gate over ``lowered`` where it applies (``gated``), then its scan."""
    return (not gated or _GATES[id(pattern)](lowered)) and found(pattern, sentence, ascii_)


# the patterns the kinds of a statement (no question) read: where no gate of them holds, none can match and the
# sentence is of no kind (``stated_free`` needs ``_FREE``, a route ``_ROUTE``); then what a promise or an offer is
# of (a promise or an offer of none of them is of no kind: its own words are not tested, nor scanned for)
_STATEMENT_WORDS = (_PROMISE, _OFFER, _RULE, _CONFIRM, _FREE, _ROUTE, _COMPENSATION, _CANCEL, _REFUND, _CABIN, _FLIGHTS)
# one scan of their rarest words (``scanned_each``): lets through a few sentences their whole gates rule out, which
# each kind's own gate then rules out, in a fraction of the time of testing every word of those gates (#47)
_STATEMENT_SCAN = scanned_each(_STATEMENT_WORDS)
_PROMISES, _OFFERS, _RULES, _CONFIRMS, _FREES, _ROUTES, _COMPENSATIONS, _CANCELS, _REFUNDS, _CABINS, _FLIGHT_CHANGES = (
    1 << i for i in range(len(_STATEMENT_WORDS)))  # their bits
_STATEMENTS = (1 << 6) - 1  # the kinds' own patterns: a sentence with none of their words is of no kind
_PROMISED = _COMPENSATIONS | _CANCELS | _REFUNDS  # what a promise is of: one of them may match
_OFFERED = _CANCELS | _CABINS | _FLIGHT_CHANGES | _COMPENSATIONS  # what an offer is of
# each tested pattern's gate by its id (the patterns are held here): ``needs``' lookup without its call (#47)
_GATES = {id(p): needs(p).check for p in _STATEMENT_WORDS}


__all__ = ["kind", "option"]
