"""The user's reply read as an answer to what the agent put to them (#46 item 4).

A reply answers the agent's message before it. What it takes, refuses or confirms is read from that pairing,
not from the reply's words alone:

- **an option is picked** by a statement of the reply that asks for it: not negated, not conditional ("it's
  unfair that I only get compensation if I change or cancel"), not the option set aside ("upgrade instead of
  cancelling"), not asked about. A reply naming the option only in those ways turns it down. A bare "yes" picks
  an option only where the agent's message offered that one alone: after a list of options it picks none of
  them;
- **agreement** is a yes the reply states: not negated ("that's not okay"), not asked ("could you confirm
  that this will be honored?"), and not opened by a refusal ("No, ...");
- **a write's confirmation** is such a yes, or an answer to the agent's request for confirmation that neither
  refuses nor withdraws and does not end by asking the agent something back, given *to the agent's message
  putting that write to the user* (asking for confirmation, or naming its values): the user's opening request,
  which answers no listing, confirms nothing; a yes put off ("before we proceed, ...") is not given yet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from conversation_reading._boundary import named_in
from conversation_reading._evidence import (
    TRANSFER_TOOL,
    Turn,
    asks,
    mentions,
    negated,
    split_sentences,
)
from conversation_reading._gate import gateable, may_match
from conversation_reading._led_matches import led_matches, led_search, may_lead
from conversation_reading._lowered_search import ascii_lowered, matches, scans
from conversation_reading._reading_memo import ReadingMemo
from conversation_reading._vocabulary import vocabulary
from policy_model import CANCEL_TOOL

# Arguments that name nothing the user confirms (who the user is, the trip's shape, counts any message holds).
_NOT_LISTED = frozenset({"user_id", "flight_type", "total_baggages", "nonfree_baggages", "insurance", "country",
                         "state", "address2"})
_REFUSAL_OPENING = re.compile(r"\W*(?:no|nope|not)\b", re.IGNORECASE)
# A list of options: lines that open with a number, a bullet or "Option N" before an act.
_OPTION_LINE = re.compile(r"^\s*(?:\*\*)?\s*(?:\d+\s*[.)\-\u2013:]|option\s+\w+\b|[-*\u2022]\s+\*\*)", re.IGNORECASE | re.M)


def set_aside(sentence: str, start: int) -> bool:
    """The term at ``start`` is negated, conditional or the alternative set aside ("instead of cancelling")."""
    v = vocabulary()
    return (negated(sentence, start) or negated(sentence, start, v.hypothetical)
            or bool(v.alternative.search(sentence[max(0, start - 30) : start])))


def picks(pattern: re.Pattern[str], reply: str) -> bool | None:
    """Whether ``reply`` picks the option ``pattern`` names: True where a statement asks for it, False where it
    names the option only to turn it down (negated, conditional, set aside, or in a question), None where it
    does not name it. A reply that turns the option down anywhere has not picked it."""
    named = [(s, m) for s in split_sentences(reply) for m in pattern.finditer(s)]
    if not named:
        return None
    if any(set_aside(s, m.start()) for s, m in named):
        return False
    return any(not s.rstrip().endswith("?") and not asks(s, m.start()) for s, m in named)


def reading_replies() -> AbstractContextManager[None]:
    """While one conversation is read (``_reading.conversation_record``): ``agrees`` reads each reply once, and
    ``asks_confirmation`` each agent message."""
    return _AGREES.reading(_ASKS_CONFIRMATION)


def agrees(reply: str) -> bool:
    """The reply states a yes (the catalog's ``agreement``): not negated, not in a question, not after an opening
    refusal."""
    return _AGREES(reply)


def _agrees(reply: str) -> bool:
    v = vocabulary()
    if _REFUSAL_OPENING.match(reply) or not may_lead(v.agreement, reply, reply.lower()):
        return False  # no sentence (a part of the reply) could state the yes: most replies lack its leading words
    # an ASCII sentence's yeses found from where the agreement's leading words stand (``_led_matches``: its scan tries
    # a branch of sixteen at every word); a question is not scanned (none of its yeses counts); the withdrawal's
    # scan, slower, only where a yes is stated
    # (a loop, not ``any`` over a generator: its frame and its closing cost more than the rest of most replies, #47)
    agreement = v.agreement
    for s in split_sentences(reply):
        if s.rstrip().endswith("?"):
            continue
        for m in _yeses(agreement, s):
            if not negated(s, m.start()):
                return not mentions(v.withdrawal, reply)
    return False


def _yeses(agreement: re.Pattern[str], sentence: str) -> Iterator[re.Match[str]]:
    """``agreement``'s matches in ``sentence``: of an ASCII one, from the places its leading words stand (none
    there: no scan); of any other, none without a scan where its gate (``_gate``) rules the sentence out."""
    low = sentence.lower()
    if sentence.isascii():
        return led_matches(agreement, sentence, low)
    if not may_match(agreement, low, gateable(sentence)):
        return iter(())
    return matches(agreement, sentence, None)


# The answers of ``agrees`` while one conversation is read (``reading_replies``), by reply: every claim and
# consequential sentence asks of the reply after it, and most replies follow several. Dropped after the reading.
_AGREES: ReadingMemo[str, bool] = ReadingMemo(_agrees)


def options_offered(text: str) -> int:
    """How many options the agent's message lists (lines opening with a number, a bullet or "Option N")."""
    return len(_OPTION_LINE.findall(text))


def reply_to(turns: list[Turn], index: int) -> Turn | None:
    """The user's reply to the agent's message at ``index``: the next user message."""
    for t in turns[index + 1 :]:  # a loop, not ``next`` over a generator: its frame cost more than the search (#47)
        if t.role == "user":
            return t
    return None


def answered(turns: list[Turn], said: Turn) -> Turn | None:
    """The agent's message a user message answers: the agent's last message with words before it (None: the
    user spoke first, as an opening request does)."""
    # back from ``said`` (the turns before its index, as a slice bounds them), no copy of them, no generator (#47)
    for i in range(min(said.index, len(turns)) - 1, -1, -1):
        t = turns[i]
        if t.role == "assistant" and t.text.strip():
            return t
    return None


def _cancelled_after(turns: list[Turn], index: int) -> bool:
    """A cancellation was called after message ``index``."""
    return any(c.name == CANCEL_TOOL for t in turns[index + 1 :] for c in t.calls)


def took_offer(turns: list[Turn], index: int) -> bool:
    """The user took the cancellation offered at ``index``: a cancellation was made after it, or their reply
    picks it (asks for the cancellation in a statement, or says yes to a message offering it alone), and
    neither turns it down, ends the call nor asks for a transfer."""
    if _cancelled_after(turns, index):
        return True
    nxt = reply_to(turns, index)
    if nxt is None:
        return False
    v = vocabulary()
    picked = picks(v.requests["cancel_reservation"], nxt.text)
    if picked is not None:
        return picked
    if "###STOP###" in nxt.text or mentions(v.transfer_request, nxt.text):
        return False
    offer = turns[index].text
    return agrees(nxt.text) and options_offered(offer) < 2 and not mentions(v.transfer_request, offer)


def withdrew_offer(turns: list[Turn], index: int) -> int | None:
    """Where the agent took back the cancellation it offered at ``index`` after the user took it (#46 item 3: a
    reading rests on what the agent finally did): its answer to the user's take (its messages before the user
    speaks again) declines a cancellation, in words or in a transfer summary, and no cancellation is ever
    called. None where it kept to the offer."""
    if _cancelled_after(turns, index):
        return None
    took = reply_to(turns, index)
    if took is None:
        return None
    v = vocabulary()
    cancel = v.requests[CANCEL_TOOL]
    for t in turns[took.index + 1 :]:
        if t.role == "user":
            break
        if t.role != "assistant":
            continue
        said = [t.text, *(str(c.arguments.get("summary") or "") for c in t.calls if c.name == TRANSFER_TOOL)]
        if any(cancel.search(s) and v.decline.search(s) and not s.rstrip().endswith("?")
               for text in said for s in split_sentences(text)):
            return t.index
    return None


def acted_on(turns: list[Turn], index: int) -> bool:
    """The user's reply accepts what was said at ``index``: agrees, ends the call, or asks for a transfer."""
    nxt = reply_to(turns, index)
    if nxt is None:
        return False
    return "###STOP###" in nxt.text or agrees(nxt.text) or mentions(vocabulary().transfer_request, nxt.text)


def _values(arguments: Any) -> list[str]:
    """A write's argument values as words (ids, flight numbers, amounts), nested entries opened, in order."""
    found: list[str] = []
    _collect(arguments, found)
    return found


_SCALARS = (str, int, float)  # a tuple: ``str | int | float`` builds a union at each test


def _collect(value: Any, found: list[str]) -> None:
    """``_values``' walk: a call per entry (a generator per level cost twice the instructions)."""
    if isinstance(value, dict):
        for key, entry in value.items():
            if key not in _NOT_LISTED:
                _collect(entry, found)
    elif isinstance(value, list):
        for entry in value:
            _collect(entry, found)
    elif isinstance(value, _SCALARS) and len(word := str(value)) >= 3:
        found.append(word.lower().lstrip("#"))


def lists(agent: Turn, arguments: dict[str, Any], tool: str = "") -> bool:
    """The agent's message puts the write to the user: asks for confirmation, names one of its values, or asks
    about its act ("Are you returning all units?": the catalog's ``requests`` words of ``tool`` in a question)."""
    if asks_confirmation(agent.text):  # lowers the text itself (once a text while a conversation is read)
        return True
    v = vocabulary()
    text = agent.text.lower()
    if any(named_in(x, text) for x in _values(arguments)):  # as a word of its own (``_boundary``)
        return True
    act = v.requests.get(tool)
    return act is not None and any(s.rstrip().endswith("?") and scans(act, s, ascii_lowered(s))
                                   for s in split_sentences(agent.text))


def asks_confirmation(text: str, lowered: str | None = None) -> bool:
    """The agent's ``text`` asks for confirmation (the catalog's ``confirmation_request`` matches it; ``lowered``:
    its lowercase, where the reader holds it). Of an ASCII text, the lowercase twin (``_lowered_search``) tried only
    where one of its leading words stands (``_led_matches.led_search``: one pass finds them). Any other text is searched as it is: a capital dotted I lowers to two characters, which
    the scan's "i" matches as one (``gateable`` lets such a text through). Read once per text while a conversation
    is read (``reading_replies``): each write's reading asks it of the same messages."""
    if _ASKS_CONFIRMATION.held:
        return _ASKS_CONFIRMATION(text)
    return _asks_confirmation(text, lowered)


def _asks_confirmation(text: str, lowered: str | None = None) -> bool:
    pattern = vocabulary().confirmation_request
    if not text.isascii():
        return pattern.search(text) is not None
    # tried where its leading words stand (``_led_matches``): the scan from every position of a long listing, most of
    # the write readings' cost (#47)
    return led_search(pattern, text, text.lower() if lowered is None else lowered)


_ASKS_CONFIRMATION: ReadingMemo[str, bool] = ReadingMemo(_asks_confirmation)


def says_yes(said: Turn, asked: Turn) -> bool:
    """``said`` answers ``asked`` with a yes: an explicit yes it states (not negated, not put off, not asked),
    or, to a request for confirmation, an answer that neither refuses, withdraws nor ends on a question."""
    v = vocabulary()
    # a loop, not ``any`` over a generator: its frame and its closing cost more than reading most replies' first
    # sentence, which states the yes (#47)
    for s in split_sentences(said.text):
        if s.rstrip().endswith("?"):
            continue
        for m in led_matches(v.explicit_yes, s, ascii_lowered(s)):
            if not negated(s, start := m.start()) and not negated(s, start, v.pending):
                return True
    if not asks_confirmation(asked.text) or _REFUSAL_OPENING.match(said.text):
        return False
    return not mentions(v.withdrawal, said.text) and not said.text.rstrip().endswith("?")


def confirmation_of(turns: list[Turn], index: int, arguments: dict[str, Any], tool: str = "") -> Turn | None:
    """The user message confirming the write ``tool`` called at ``index`` (``arguments``: the call's), or None:
    the last user message before it answering the agent putting this write to them (``lists``) must say yes to it
    (``says_yes``). A user message answering a question of the agent that puts nothing of the write (a
    clarification: "could you rephrase that?") is passed over; one answering anything else, or the user's opening
    request, which answers no listing, confirms nothing."""
    passed: set[str] = set()  # the agent's texts passed over: they put nothing of the write and ask a question
    for said in reversed(turns[:index]):
        if said.role != "user" or not said.text.strip():
            continue
        asked = answered(turns, said)
        if asked is None:
            return None
        if asked.text in passed:
            continue  # the same text again ("Could you confirm?" each time): passed over again (``lists`` reads the text)
        passed.add(asked.text)
        if lists(asked, arguments, tool):
            return said if says_yes(said, asked) else None
        if not any(s.rstrip().endswith("?") for s in split_sentences(asked.text)):
            return None
    return None


def may_agree(reply: str) -> bool:
    """A necessary condition of ``agrees`` (False: it does not agree): the catalog's agreement may match the reply,
    by the gate (``_gate``) of its words; most replies that say no yes hold none of them."""
    return may_match(vocabulary().agreement, reply.lower(), gateable(reply))


__all__ = ["acted_on", "asks_confirmation", "withdrew_offer", "agrees", "answered", "confirmation_of", "lists", "options_offered", "picks", "reply_to", "set_aside",
           "may_agree", "says_yes", "took_offer"]
