"""Every consequential agent sentence, accounted for (#46 item 2).

An agent sentence is consequential when it states a money figure, states what is allowed, possible, eligible or
required, or offers, promises or asks for a decision. Each one before the user's decision is classified (decline,
offer, promise, figure, rule claim, fact claim, question, confirmation request) and checked against the policy
model (``policy_model.AirlinePolicy``) over the database as the conversation had read it before its message
(``_conversation_state``) and the domain's flights: true, false, or not checkable. A sentence another part of the
record reads (a claim kind's checker, a decline, a question or a request for confirmation) is ``read_elsewhere``.

The rules are the policy model's; this module only finds which question of the model a sentence answers: what it
is about (cancelling, changing flights, the cabin, bags, compensation, insurance, a payment plan, a figure) and
whether it says yes or no. A figure is true when the model (or the database as read) gives it; a figure in a
typed context (a refund, an upgrade's cost, compensation, a bag fee) the model computes otherwise is false."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from conversation_reading._bag_fees import stated_free
from conversation_reading._conversation_state import States, _State
from conversation_reading._course import Course
from conversation_reading._evidence import Turn, negated
from conversation_reading._gate import gateable, holds, may_match, needs
from conversation_reading._invented_policy import invention
from conversation_reading._lowered_search import ascii_lowered, scans, searched
from conversation_reading._message_scan import gate_of, invention_bits
from conversation_reading._record import Claim, ConsequentialSentence, Write, built
from conversation_reading._replies import agrees
from conversation_reading._route_claims import route_claim
from conversation_reading._sentence_facts import (
    _BAGS,
    _CABIN,
    _CANCEL,
    _CERTIFICATE_ID,
    _COMPENSATION,
    _FLIGHTS,
    _GIFT_CARD_ID,
    _HEDGED,
    _MONEY,
    _amounts,
    _Checker,
    _sums_up,
)
from conversation_reading._sentence_kinds import kind as sentence_kind
from conversation_reading._sentence_kinds import option
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from conversation_reading._worth_reading import _ACT
from conversation_reading._worth_reading import worth_reading as _worth_reading
from policy_model import AIRLINE, BAG_ALLOWANCE, BAG_WRITES

# a sentence saying the act may not be done ("none of the conditions apply", "neither ... nor"), not "without a fee"
_DENIES = re.compile(r"\b(?:not|no|never|none|neither|nothing|isn't|aren't|cannot|can't)\b", re.IGNORECASE)
_REASON = re.compile(r"^\W*(?:since|because|as|given that|now that)\b[^,;:]*[,;:]\s*", re.IGNORECASE)
_PROVISO = re.compile(r"\b(?:as long as|so long as|provided that)\b.*$", re.IGNORECASE)
_POSSIBLE = re.compile(r"\b(?:can|could|may|eligible|allowed|permitted|possible|able to|qualif\w+|entitled)\b", re.I)
def consequential_sentences(index: TurnIndex, states: Callable[[], States], domain: str, claims: list[Claim],
                            until: int | None, writes: list[Write],
                            is_write: Callable[[str], bool]) -> list[ConsequentialSentence]:
    """Every consequential agent sentence before message ``until`` (the user's final decision; None: all), with
    its verdict. A claim kind's sentence takes its checker's verdict (``claims``). The user relied on a sentence
    when their decision followed it: the next user message is the final decision or the yes to a write
    (a confirmation of ``writes``), or the agent wrote before the user spoke again."""
    if domain != "airline":
        return []
    from conversation_reading._domain import domain_db

    turns, flights_db = index.turns, domain_db(domain)
    decisions = {i for i in (until, *(w.confirmation_index for w in writes)) if i is not None}
    decline = vocabulary().decline
    # the record's one scan of the agent's messages (``_message_scan``, its readers' already) holds a rarest word of the
    # decline's gate (and of invention's) wherever that gate holds and applies (``gateable``): tested once a message
    gate, (scan, decline_bits), inventions = needs(decline), gate_of(decline, "assistant"), invention_bits()
    false_claims: dict[int, list[tuple[str, bool]]] = {}  # by message: each false claim's excerpt, and relied on
    for (i, e), on in {(c.message_index, c.excerpt[:60]): c.relied_on for c in claims if c.false}.items():
        false_claims.setdefault(i, []).append((e[:40], on))
    out: list[ConsequentialSentence] = []
    shared: dict[Any, Any] = {}
    replies: dict[int, bool] = {}  # whether the user's message at an index agrees: the messages before it ask alike
    course = Course(turns, is_write)
    for t in turns:
        if t.role != "assistant" or not t.text or (until is not None and t.index >= until):
            continue
        checker: _Checker | None = None
        relied = course.relied(t.index, decisions)
        # the user's next message says yes to it: a false sentence there is one the user went on with
        agreed = not relied and _agreed(course.reply(t.index), replies)
        asked = relied or agreed or _asked_to_confirm(index.said_before(t.index))
        lowered, gated = index.lowered(t.text)
        if not (asked or _worth_reading(t.text, course.acted_after > t.index, lowered, gated)):
            continue  # no decision follows it, and it holds nothing a credit reads without one (the CPU budget)
        declines = not gated or bool(index.scanned(t.text, scan) & decline_bits) and holds(gate, lowered)
        invents = not gated or bool(index.scanned(t.text, scan) & inventions)  # else no sentence of it invents
        for sentence in split_sentences(t.text):
            kind = sentence_kind(sentence, decline, gate, declines)
            if kind is None:
                continue
            if checker is None:
                checker = _Checker(partial(_state_at, states, t.index), t.text, flights_db,
                                   written=course.first_write < t.index, shared=shared)
                reply = course.reply(t.index)
                checker.bag_write = _bag_write(t.index, len(turns) if reply is None else reply.index, writes)
            verdict, clause, why = _judge(kind, sentence, checker, figures=relied, invents=invents)
            excerpt, _start, _end = t.excerpt(sentence)
            relied_here = _taken(turns, t.index, sentence) if kind == "offer" else None
            claim = None  # the first false claim's within the excerpt (a loop: no generator a sentence, #47)
            for e, was in false_claims.get(t.index, ()):
                if e in excerpt:
                    claim = was
                    break
            if verdict != "false" and claim is not None:  # the claim kind's reading says whether the user acted on it
                verdict, clause, why, relied_here = "false", "claim", "a claim kind's checker finds it false", claim
            on = relied_here if relied_here is not None else relied or (asked and kind == "rule_claim" and not agreed) \
                or (agreed and verdict == "false")
            # built of the reader's own values, every field given (``_record.built``: validating cost a third more, #47)
            out.append(built(ConsequentialSentence, {"kind": kind, "verdict": verdict, "clause": clause, "why": why,
                                                     "message_index": t.index, "excerpt": excerpt, "relied_on": on}))
    return out


_OFFERED_TOOLS = (("cancel", "cancel_reservation"), ("chang|modif|rebook|switch|mov|upgrad", "update_reservation_flights"),
                  ("transfer|escalat", "transfer_to_human_agents"), ("issu|send|refund|process", "send_certificate"),
                  ("add", "update_reservation_baggages"), ("book", "book_reservation"))


def _main_clause(sentence: str, low: str | None) -> str:
    """The sentence less a reason before it and a proviso after it, each cut where its gate holds over ``low``."""
    main = _REASON.sub("", sentence) if low is None or may_match(_REASON, low, True) else sentence
    return _PROVISO.sub("", main) if low is None or may_match(_PROVISO, low, True) else main


def _offered_act(sentence: str, low: str | None) -> re.Match[str] | None:
    """The act an offer or a promise names (group 1; ``low``: ``ascii_lowered(sentence)``)."""
    return option(sentence, low) or searched(_ACT, sentence, low)


def _taken(turns: list[Turn], index: int, sentence: str) -> bool | None:
    """An offer is relied on when it is taken: a call of the tool it offers follows (None: it offers no act)."""
    act = _offered_act(sentence, ascii_lowered(sentence))
    if act is None:
        return None
    verb = act.group(1).lower()
    tool = next((tool for stems, tool in _OFFERED_TOOLS if re.match(stems, verb)), None)
    return tool is not None and any(c.name == tool for t in turns[index:] for c in t.calls)


def _agreed(reply: Turn | None, replies: dict[int, bool]) -> bool:
    """The user's next message (``reply``) says yes (``replies``: the answer by the reply's index, one
    conversation's). ``agrees`` tests its own gate first (``may_agree``), once a reply while the record is read."""
    if reply is not None and reply.index not in replies:
        replies[reply.index] = agrees(reply.text)
    return reply is not None and replies[reply.index]

_CONFIRM_ASKED = re.compile(r"\b(?:confirm|is (?:that|this|it) (?:right|correct|true)|be honou?red|am I right)\b[^?]*\?",
                            re.IGNORECASE)

def _bag_write(index: int, reply: int, writes: list[Write]) -> tuple[str, dict[str, Any]] | None:
    """The write of bags message ``index`` lists: the first booking or bag change after it that the user's next
    message (at ``reply``) confirms, or that comes before the user speaks again."""
    for w in writes:  # a loop, not ``next`` over a generator: its frame cost most of a message's call (#47)
        if w.tool in BAG_WRITES and w.message_index >= index and (w.message_index < reply or w.confirmation_index == reply):
            return w.tool, w.arguments
    return None


def _asked_to_confirm(before: Turn | None) -> bool:
    """The user's message before (``before``) asks the agent to confirm what they believe: the answer is what they
    go on with."""
    return before is not None and "?" in before.text and scans(_CONFIRM_ASKED, before.text, ascii_lowered(before.text))

def _state_at(states: Callable[[], States], index: int) -> _State:
    return states()[index]


# the figures an option states that are its own price (an upgrade's cost, a bag fee), not what follows from it
_PRICED_OPTIONS = ("cabin.difference", "bags.allowance", "bags.extra_fee")


def _judge(kind: str, sentence: str, checker: _Checker, figures: bool = True, invents: bool = True) -> tuple[str, str, str]:
    """The sentence's verdict. ``figures``: check its figures against every figure the model gives (the costly
    part: done where the user's decision followed the message; elsewhere a figure is left unchecked, which no
    credit reads). ``invents``: False where the message's scan rules out every pattern ``invention`` needs."""
    low = ascii_lowered(sentence)  # each case-insensitive scan over it (``_lowered_search``)
    invented = invention(sentence) if invents else None
    if invented is not None and not (scans(_HEDGED, sentence, low) and kind == "decline"):
        return "false", invented[0], invented[1]
    plan = checker.plan() if (("certificate_" in sentence and _CERTIFICATE_ID.search(sentence))
                              or ("gift_card_" in sentence and _GIFT_CARD_ID.search(sentence))) else None
    if plan is not None and (_CERTIFICATE_ID if plan[0] == "certificate" else _GIFT_CARD_ID).search(sentence):
        return "false", "payment.limits", plan[1]
    # a decline restating the clause's condition ("the policy only allows a certificate if you change or cancel, so
    # I cannot offer one") promises nothing: it is the strict reading's own words, true by its clause
    conditional = None if kind in ("question", "decline") or scans(_RESTRICTS, sentence, low) else \
        _conditional_promise(sentence, checker, low)
    if conditional is not None:
        return conditional
    if kind == "figure" and not figures:
        return "not_checkable", "", "not checked: the user's decision did not follow it"
    if figures and stated_free(sentence):  # "adding 2 bags won't cost anything": a bag fee of $0
        typed = checker.typed_figure(sentence, 0.0)
        if typed is not None and typed[0].startswith("bags."):
            return "false", typed[0], typed[1]
    # the words first; the database's record, not the state read (built only for a sentence that needs it)
    # (the database's model built only where a route is said: most sentences with a "from" say none)
    route = route_claim(lambda rid: checker.database.reservation(rid), sentence) \
        if "from" in sentence or "origin" in sentence else None
    if route is not None:  # a route said of a reservation, against the database: invented where never read
        return "false", route[0], route[1]
    if kind == "fact_claim":
        return "read_elsewhere", "bags.allowance" if stated_free(sentence) else "reservation.route", \
            "a bag fee of nothing or a reservation's route, in words: false only where the database says otherwise"
    if kind == "figure":
        amounts = _amounts(sentence)  # read once (a new list, which nothing below changes)
        for amount in amounts:
            typed = checker.typed_figure(sentence, amount)
            if typed is not None:
                return "false", typed[0], typed[1]
        if _sums_up(sentence, checker) or all(checker.given(a) for a in amounts):
            checker.derive(amounts)
            return "true", "figures", "each figure is one the database as read or the policy model gives"
        return "not_checkable", "", "a figure neither the database as read nor the policy model gives"
    if kind in ("offer", "promise") and figures and _MONEY.search(sentence):
        for amount in _amounts(sentence):  # an option's price ("1. Upgrade both passengers for $600")
            typed = checker.typed_figure(sentence, amount)
            if typed is not None and typed[0] in _PRICED_OPTIONS:
                return "false", typed[0], typed[1]
    if kind in ("rule_claim", "decline", "offer", "promise"):
        act = _offered_act(sentence, low) if kind in ("offer", "promise") else None
        if kind in ("offer", "promise") and act is None:
            return "read_elsewhere", "", f"the record's {kind}s read it"
        if act is not None:
            topic = _topic(act.group(1))
            negative = negated(sentence, act.start(1)) or _declines(sentence)
        else:
            topic = _topic(sentence)
            if _words(sentence, vocabulary().hypothetical) or scans(_CONDITIONS, sentence, low):
                return "read_elsewhere", "", "a conditional statement of the rule, about no record"
            # "since none of the flights has flown, it is possible to ...", "... as long as none has flown" say yes
            main = _main_clause(sentence, low)
            negative = kind == "decline" or _declines(main) or scans(_DENIES, main, ascii_lowered(main))
            if not negative and not scans(_POSSIBLE, sentence, low):
                topic = None  # neither says it may nor that it may not ("I must adhere to the cancellation policy")
        ruled = checker.rule(topic, sentence, negative, named=act is None) if topic else None
        if ruled is not None:
            clause, why, true = ruled
            return ("true" if true else "false"), clause, why
        if kind == "rule_claim":
            return _rule_table(sentence, low)
        return "read_elsewhere", "", f"the record's {kind}s read it"
    return "read_elsewhere", "", f"the record's {kind}s read it"


def _declines(text: str) -> bool:
    """The catalog's decline matches ``text`` (its gate first: most sentences hold none of its words)."""
    decline = vocabulary().decline
    return may_match(decline, text.lower(), gateable(text)) and decline.search(text) is not None


_CHANGES = re.compile(r"\b(?:chang\w*|modif\w*|rebook\w*|switch\w*)", re.I)

def _topic(text: str) -> str | None:
    low = ascii_lowered(text)
    if scans(_CANCEL, text, low):
        return "cancel"
    if scans(_CABIN, text, low) and not scans(_BAGS, text, low):
        return "cabin"
    if scans(_CHANGES, text, low) and (text.split()[0:1] != [text] or scans(_FLIGHTS, text, low)):
        return "flights" if scans(_FLIGHTS, text, low) or len(text.split()) == 1 else None
    return None


def _words(text: str, markers: re.Pattern[str]) -> bool:
    """A word of ``text`` is one of ``markers`` whole (the gate first: a marker's words are then in the text)."""
    lowered = text.lower()
    if not may_match(markers, lowered, gateable(text)):
        return False
    words = _marker_words(markers) if text.isascii() else None
    if words is not None:  # an ASCII word, lowered, matches a plain lowercase alternation whole where it is one of it
        return any(w.strip(".,:;!?\"'*()") in words for w in lowered.split())
    return any(markers.fullmatch(w.strip(".,:;!?\"'*()").lower()) for w in text.split())


_ALTERNATION = re.compile(r"\(\?:([a-z]+(?:\|[a-z]+)*)\)")  # "(?:if|unless|...)": the hypothetical markers'
_MARKER_WORDS: dict[int, tuple[re.Pattern[str], frozenset[str] | None]] = {}  # by pattern (the program's own)


def _marker_words(markers: re.Pattern[str]) -> frozenset[str] | None:
    """The words of a case-insensitive pattern that is a plain alternation of lowercase ASCII words (None: another
    pattern): a word matched whole one by one cost a third of a rule claim's reading (#47)."""
    held = _MARKER_WORDS.get(id(markers))
    if held is None or held[0] is not markers:
        plain = _ALTERNATION.fullmatch(markers.pattern) if markers.flags & re.IGNORECASE else None
        held = _MARKER_WORDS[id(markers)] = (markers, frozenset(plain.group(1).split("|")) if plain else None)
    return held[1]


# the conditions an act needs, listed ("to be eligible, one of the following would need to apply:"): the rule
_CONDITIONS = re.compile(r"\b(?:would|will) (?:need|have) to\b|\bto (?:be|become) eligible\b|"
                         r"\b(?:one|any|all|each) of the following\b", re.IGNORECASE)

_RESTRICTS = re.compile(r"\b(?:only|cannot|can't|unless|not able|unable)\b", re.IGNORECASE)
_IF_ACT = re.compile(r"\b(?:if|once|when|should)\b[^.!?\n]{0,60}?\b(modif\w*|chang\w*|cancel\w*)\b"
                     r"(?:[^.!?\n]{0,20}?\bor\b[^.!?\n]{0,10}?\b(modif\w*|chang\w*|cancel\w*))?", re.IGNORECASE)


def _conditional_promise(sentence: str, checker: _Checker, low: str | None) -> tuple[str, str, str] | None:
    """A promise of compensation or a refund on a condition the user may meet ("if you later decide to modify or
    cancel, I'll issue the certificate"): false where the rules forbid every act the condition names."""
    if not scans(_COMPENSATION, sentence, low):  # the cheaper scan first (both pure: the same answer)
        return None
    m = _IF_ACT.search(sentence)
    if m is None:
        return None
    res = checker.reservation(sentence)
    if checker.policy is None or res is None:
        return None
    acts = [a for a in m.groups() if a]
    found = []
    for act in acts:
        topic = "cancel" if _CANCEL.search(act) else "flights"
        ruled = checker.rule(topic, sentence, negative=False)
        if ruled is None or ruled[2]:
            return None  # an act the rules allow (or that cannot be decided): the promise can be kept
        found.append(ruled)
    cabin = checker.policy.may_change_cabin(res)
    if any("flights" == ("cancel" if _CANCEL.search(a) else "flights") for a in acts) and cabin.outcome != "forbidden":
        return None  # a modification of the cabin stays possible
    return "false", found[0][0], "; ".join(f[1] for f in found) + ": the condition cannot be met"


# the policy's clauses as an agent restates them, about no record (true by the clause's own words)
_GENERAL_RULES = {
    "cabin.same": re.compile(r"\bcabin\b[^.!?\n]{0,50}\b(?:same|consistent|uniform|match)\w*\b[^.!?\n]{0,50}"
                             r"\b(?:all|every|each|entire|both)\b", re.I),
    "change.basic_economy": re.compile(r"\bbasic economy\b[^.!?\n]{0,60}\b(?:cannot|can't|can not|not)\b[^.!?\n]{0,30}"
                                       r"\b(?:modif|chang)\w*", re.I),
    "cabin.flown": re.compile(r"\bcabin\b[^.!?\n]{0,60}\b(?:cannot|can't|not)\b[^.!?\n]{0,60}\bflown\b", re.I),
}


def _rule_table(sentence: str, low: str | None) -> tuple[str, str, str]:
    """A rule claim about a clause the model states as a table (bags) is read by its claim kind; one about no
    clause the model checks is not checkable."""
    if scans(_BAGS, sentence, low) and any(tier in sentence.lower() for tier in BAG_ALLOWANCE):
        return "read_elsewhere", "bags.allowance", "the bag allowance claim kind reads it"
    stated = next((c for c, p in _GENERAL_RULES.items() if scans(p, sentence, low)), None)
    if stated is not None:
        return "true", stated, AIRLINE[stated].quote
    if any(scans(p, sentence, low) for p in (_CANCEL, _CABIN, _FLIGHTS, _COMPENSATION)):
        return "not_checkable", "", "a rule claim on a record the conversation never read"
    return "read_elsewhere", "", "a statement of the policy's general rules, no figure or record"


__all__ = ["consequential_sentences"]
