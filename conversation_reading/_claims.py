"""Claims of fact checked against the database (#36 item 4).

A claim kind is data plus code: its patterns are the catalog's (``claims:`` in ``vocabulary.yaml``: what an
agent sentence asserting it sounds like), its checker is here and evaluates the claim against the database as
the conversation had read it at that point (the tool results before the sentence) and the domain's current
time (the catalog's ``now``). A checker returns what the database says where the claim is false, else None
(true, or not decidable from what was read: never a guess).

A credit that rests on a false claim the user acted on (their next message agrees, ends the call or asks for
a transfer) is ``not_credited``; one the user's decision did not depend on is ``uncertain`` (``explain``).

An offer is a claim too: offering to cancel and book anew says the reservation may be cancelled. Its kind is
checked only for the refusals the catalog names (``refusals_of``), over the whole conversation, and the user
acts on it by taking it (``_replies.took_offer``), not by agreeing to a decline."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import combinations
from typing import Any

from tau2.data_model.message import Message

from conversation_reading._conversation_state import _reservation, _reservation_age, _State, _states
from conversation_reading._database_status import database_status
from conversation_reading._evidence import (
    CONDITIONAL_RULE,
    Turn,
    asserted,
    negated,
    price_bound,
    split_sentences,
)
from conversation_reading._fare_totals import CENT, _another_itinerary, _differs_by, _paid
from conversation_reading._gate import gateable, may_match
from conversation_reading._lowered_search import ascii_lowered, says, scans
from conversation_reading._policy_claims import POLICY_CHECKERS
from conversation_reading._reading_memo import ReadingMemo
from conversation_reading._replies import acted_on, took_offer, withdrew_offer
from conversation_reading._vocabulary import vocabulary
from conversation_reading._vocabulary_data import ReadingVocabulary, load_vocabulary
from policy_model import (
    MAX_PASSENGERS,
    NOW,
    PAYMENT_LIMITS,
    AirlinePolicy,
    within_booking_window,
)


@dataclass
class FalseClaim:
    kind: str
    what: str
    message_index: int
    excerpt: str
    truth: str  # what the database says
    acted_on: bool
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class _Kind:
    name: str
    what: str
    patterns: tuple[re.Pattern[str], ...]
    not_claims: re.Pattern[str] | None = None
    refusals_of: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def claim_kinds() -> tuple[tuple[_Kind, ...], dict[str, str]]:
    """The installed catalog's claim kinds, compiled once (``compile_kinds``)."""
    return compile_kinds(load_vocabulary())


def compile_kinds(catalog: ReadingVocabulary) -> tuple[tuple[_Kind, ...], dict[str, str]]:
    """The catalog's claim kinds, compiled; a kind is vocabulary plus a checker, so one without a checker is
    refused here (#40), before any conversation is read."""
    missing = sorted(set(catalog.claims.kinds) - set(checkers()))
    if missing:
        raise ValueError(f"vocabulary.yaml: claims.kinds: {', '.join(missing)}: no checker in conversation_reading._claims "
                         "or conversation_reading._policy_claims")
    kinds = tuple(
        _Kind(name, c.what, tuple(re.compile(p, re.IGNORECASE) for p in c.patterns),
              re.compile("|".join(f"(?:{p})" for p in c.not_claims), re.IGNORECASE) if c.not_claims else None,
              tuple(c.refusals_of))
        for name, c in catalog.claims.kinds.items()
    )
    return kinds, {domain: now.isoformat() for domain, now in NOW.items()}


# --- checkers: (sentence, match, message text, state) -> what the database says, or None ------------------


def _booking_window(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if not asserted(sentence, m.start()):
        return None  # "if it was booked more than 24 hours ago, ...": the rule, not a claim
    booked = _reservation_age(sentence, state)
    if booked is None:
        return None
    res, age, now = booked
    if within_booking_window(age):
        hours, rest = divmod(int(age.total_seconds()) // 60, 60)
        return (f"reservation {res.get('reservation_id')} was created at {res['created_at']}, {hours} h {rest} min "
                f"before the domain's current time {now.isoformat(sep=' ')}: within 24 hours")
    return None


_ALTERNATIVES = re.compile(r"certificate_\d+[^.\n]{0,60}\b(?:or|either)\b[^.\n]{0,60}certificate_\d+", re.IGNORECASE)
# ``\bcertificate_\d+\b`` opening with its letter, the boundary checked behind it: the engine skips "c" to "c" (#47)
_CERTIFICATE_ID = re.compile(r"c(?<=\bc)ertificate_\d+\b")


def _certificates(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    ids = set(_CERTIFICATE_ID.findall(text))
    if state.user is not None:
        methods = state.user.get("payment_methods") or {}
        certs = {k: v for k, v in methods.items() if isinstance(v, dict) and v.get("source") == "certificate"}
        ids |= {k for k in certs if k in text}
    # alternatives ("certificate_1 or certificate_2") are no plan: scanned for (by the twin) where it would use too many
    if len(ids) <= PAYMENT_LIMITS["certificate"] or says(_ALTERNATIVES, text, ascii_lowered(text)):
        return None
    return f"the plan uses {len(ids)} travel certificates ({', '.join(sorted(ids))}); the policy allows one per reservation"


def _membership(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if state.user is None or not asserted(sentence, m.start()):
        return None
    tier = str(state.user.get("membership") or "").lower()
    said = (m.group(1) if m.groups() else m.group(0)).lower()
    if tier and said != tier:
        return f"get_user_details says the membership is {tier!r}, not {said!r}"
    return None


def _cabin_rule(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if CONDITIONAL_RULE.search(sentence) or negated(sentence, m.start(), vocabulary().hypothetical):
        return None  # the rule itself ("not allowed if any flight has already been flown"), or a hypothetical
    if price_bound(sentence, m.start(), m.end()):
        return None  # "isn't possible within your $200 budget": the user's price, not the rule (#40 class 4)
    if _PART_OF_TRIP.search(sentence, m.start()):
        return None  # "cannot upgrade just the outbound leg": the one-cabin rule, true of every reservation
    res = _reservation(sentence, state)
    if res is None or state.now is None:
        return None
    # flown by its date (no status: a claim is judged on the dates the reservation lists)
    if not AirlinePolicy({}, state.now, lambda _n, _d: None).may_change_cabin(res):
        return None  # a flight was flown: the cabin may indeed not change
    return (f"every flight of {res.get('reservation_id')} is still ahead, and the policy lets any reservation change "
            "cabin unless a flight has been flown")


# a part of the trip ("just the outbound leg", "while keeping the return in economy"): the one-cabin rule's subject
_PART_OF_TRIP = re.compile(r"\b(?:only|just|one|a single|the (?:outbound|return|inbound|first|second|other))\b"
                           r"[^.!?\n]{0,20}\b(?:legs?|segments?|flights?|way|direction)\b|\bwhile keeping\b|"
                           r"\bmix(?:ed)? cabins?\b", re.IGNORECASE)
_PER_PASSENGER = re.compile(r"\bper (?:passenger|person|travell?er|ticket|seat|adult)\b|\beach\b|\bapiece\b"
                            r"|\$\s?[\d,]+(?:\.\d{1,2})?\s*[\u00d7x*]\s*\d\b"  # "$871 x 3 = $2,613": a fare times the passengers
                            r"|\bfor (?:one|a single) (?:passenger|person|travell?er)\b", re.IGNORECASE)
# a figure the message charges for insurance or bags ("Travel insurance: $60", "$50 for the extra bag")
_EXTRA_FEE = re.compile(r"\b(?:insurance|bags?|baggages?|luggage)\b[^.$\n]{0,40}\$\s?(\d[\d,]*(?:\.\d{1,2})?)|"
                        r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)[^.$\n]{0,30}\b(?:insurance|bags?|baggages?|luggage)\b", re.I)
_NOT_FARES = re.compile(r"certificate|gift card|balance|refund|credit|voucher|remaining|bag|insurance", re.IGNORECASE)


_FLIGHT_NO = re.compile(r"\b[A-Z]{3}\d{3}\b")
# over ASCII text, ``\b`` and ``\d`` mean the same in ASCII mode, which scans the conversation's words twice as fast;
# opening with the capital (the boundary before it checked behind it), the engine skips to the next capital by that
# first character, not trying the boundary at every position: the same matches, at half the instructions again (#47)
_FLIGHT_NO_ASCII = re.compile(r"[A-Z](?<=\b[A-Z])[A-Z]{2}\d{3}\b", re.ASCII)


def _flight_numbers_in(text: str, pos: int = 0) -> list[str]:
    """``_FLIGHT_NO.findall(text, pos)``: the flight numbers a text names, in order."""
    return (_FLIGHT_NO_ASCII if text.isascii() else _FLIGHT_NO).findall(text, pos)


def _extra_fees(text: str) -> frozenset[float]:
    """The insurance and bag fees ``text`` charges, less 0: a scan of the whole message, only where its gate lets it."""
    if not may_match(_EXTRA_FEE, text.lower(), gateable(text)):
        return frozenset()
    return frozenset({float((m.group(1) or m.group(2)).replace(",", "")) for m in _EXTRA_FEE.finditer(text)} - {0.0})


# The flight numbers and fees of each message a quoted total reads, found once while one conversation is read
# (``reading_flights``, entered by ``conversation_record``): a message listing options quotes a total in each of its
# sentences, and each read the whole message again. Read only, never changed; dropped with the reading.
_MESSAGE_FLIGHTS: ReadingMemo[str, list[str]] = ReadingMemo(_flight_numbers_in)
_MESSAGE_EXTRAS: ReadingMemo[str, frozenset[float]] = ReadingMemo(_extra_fees)
reading_flights = partial(_MESSAGE_FLIGHTS.reading, _MESSAGE_EXTRAS)


def _quoted_total(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    low = ascii_lowered(sentence)  # the sentence's patterns gated and searched by their twins (``_lowered_search``)
    if scans(_NOT_FARES, sentence, low):
        return None  # a total of something else than the fares (a balance, a refund, bags)
    try:
        quoted = float(m.group(1).replace(",", ""))
    except (IndexError, ValueError):
        return None
    numbers = _MESSAGE_FLIGHTS(text)
    legs = [state.flights.get(n) for n in dict.fromkeys(numbers)]
    if not legs or any(leg is None or not isinstance(leg.get("prices"), dict) for leg in legs):
        return None  # a flight whose price was never read: undecidable
    if len(legs) > 6:
        return None  # too many flights named to tell which ones the total is for
    named = [r for rid, r in state.reservations.items() if rid in text]
    res = named[0] if len(named) == 1 else state.last_reservation
    # the reservation the message discusses, whose itinerary the flights named cannot be: a new booking's total,
    # whose passengers are not the reservation's (#46)
    new_booking = len(named) == 1 and res is not None and _another_itinerary(res, legs, numbers)
    if new_booking:
        res, named = None, []
    passengers = len(res.get("passengers") or []) if res else 0
    counts = {passengers} if passengers else set(range(1, (MAX_PASSENGERS if new_booking else 9) + 1))
    # a total for the reservation the message names, not said per passenger, is for all its passengers (#40)
    whole = len(named) == 1 and passengers > 1 and not scans(_PER_PASSENGER, sentence, low)
    sums: dict[str, float] = {}
    for cabin in ("basic_economy", "economy", "business"):
        prices = [leg["prices"].get(cabin) for leg in legs if leg is not None]
        if all(isinstance(p, int | float) for p in prices):
            sums[cabin] = sum(prices)
    if not sums:
        return None
    # any subset of the named flights (a message may list alternatives), any cabin, per passenger or for
    # all of them, or the difference against what the reservation paid
    def near(values: Iterable[float]) -> bool:
        return any(abs(quoted - p) < CENT for p in values)

    # each step below adds totals the quote may be: tested as they come (the first within a cent ends it)
    possible: set[float] = set()
    for cabin in sums:
        prices = [float(leg["prices"][cabin]) for leg in legs if leg is not None]
        subsets = {0.0}
        for p in prices:
            subsets |= {x + p for x in subsets}
        fares = {x * n for x in subsets for n in (counts if whole else {1, *counts})}
        if near(fares):
            return None  # a cabin's totals tested as they come: the others are not built
        possible |= fares
    # a total with the extras the message itself charges in it: its insurance and bag fees, as stated
    extras = _MESSAGE_EXTRAS(text)
    for k in range(1, len(extras) + 1):
        for fees in combinations(sorted(extras), k):
            possible |= {x + sum(fees) for x in set(possible)}
    paid = _paid(res) if res else 0
    possible |= {x - paid for x in possible}
    if (extras or paid) and near(possible):
        return None
    # what a reservation the sentence is about cost: any of its fares as booked (per passenger, or for all of
    # them), what it paid ("Original total: $503 (outbound: $323; return: $180)", "7WPL39 - total paid: $402"),
    # and the new fares' difference against the booked ones ("from $174 to $408, an additional $234")
    about = [r for rid, r in state.reservations.items() if rid in sentence] or (
        [res] if res else list(state.reservations.values()))
    booked: set[float] = set()
    for r in about:
        n = len(r.get("passengers") or []) or 1
        fares = {0.0}
        for f in r.get("flights") or []:
            if isinstance(f, dict) and isinstance(f.get("price"), int | float):
                fares |= {x + float(f["price"]) for x in fares}
        booked |= {x * k for x in fares for k in {1, n}}
        booked.add(float(_paid(r)))
    if near(booked) or _differs_by(quoted, possible, booked):
        return None
    # several reservations the message lists, added up ("Total cost of your upcoming flights: $1,628")
    totals = [_paid(r) for rid, r in state.reservations.items() if rid in text][:8]
    sums_paid = {0.0}
    for x in totals:
        sums_paid |= {y + float(x) for y in sums_paid}
    if near(sums_paid):
        return None
    shown = ", ".join(f"{cabin} {s:g}" for cabin, s in sums.items())
    who = (f"the {passengers} passengers of {res.get('reservation_id')}" if whole and res else
           f"a new booking of 1 to {MAX_PASSENGERS} passengers" if new_booking else "passengers")
    return (f"no choice of the flights named ({', '.join(dict.fromkeys(numbers))}; all of them: {shown} per passenger) "
            f"and {who} makes {quoted:g}")


def _status(state: _State, number: str, date: str) -> str | None:
    """A flight's status on a date: as the conversation read it, else the domain's database (no tool changes
    a flight's status, so the database's is the status at every point of the conversation)."""
    read = state.statuses.get((number, date))
    if read is not None or not state.domain:
        return read
    return database_status(state.domain)(number, date)


def _offered(sentence: str, text: str, state: _State) -> dict[str, Any] | None:
    """The reservation an offer concerns: the one the sentence names, else the one its message names, else the
    one the conversation named last, else the last one read."""
    for scope in (sentence, text):
        named = [r for rid, r in state.reservations.items() if rid in scope]
        if len(named) == 1:
            return named[0]
    last = max(state.reservations, key=state.said.rfind, default=None)
    if last is not None and state.said.rfind(last) >= 0:
        return state.reservations[last]
    return state.last_reservation


def _not_cancellable(res: dict[str, Any], state: _State) -> str | None:
    """Why the policy's cancellation rules (the policy model's) forbid cancelling ``res`` now, as the
    conversation had read it; None where they allow it or what was read cannot tell (insurance: a covered reason
    may apply; a flight whose status is unknown), or it was cancelled already."""
    assert state.now is not None
    flights = [f for f in res.get("flights") or [] if isinstance(f, dict)]
    verdict = AirlinePolicy({}, state.now, lambda n, d: _status(state, n, d)).may_cancel({**res, "flights": flights})
    if verdict.outcome != "forbidden" or verdict.clause.id == "cancel.already_cancelled":
        return None
    return verdict.why


def _cancellation_offer(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if negated(sentence, m.start()) or vocabulary().decline.search(sentence, m.end()):
        return None  # "I cannot cancel and rebook it", "cancelling and rebooking is not possible either"
    res = _offered(sentence, text, state)
    if res is None or state.now is None:
        return None
    return _not_cancellable(res, state)


CHECKERS: dict[str, Callable[[str, re.Match[str], str, _State], str | None]] = {
    "booking_window": _booking_window,
    "certificates_per_reservation": _certificates,
    "membership_tier": _membership,
    "cabin_rule": _cabin_rule,
    "quoted_total": _quoted_total,
    "cancellation_offer": _cancellation_offer,
}


def checkers() -> dict[str, Callable[[str, re.Match[str], str, _State], str | None]]:
    """Every claim kind's checker: the database's facts (here) and the policy's own rules (``_policy_claims``)."""
    return {**CHECKERS, **POLICY_CHECKERS}


# How the user acts on a claim (``_replies``): a cancellation offer by picking it, any other by accepting it.
ACTED_ON: dict[str, Callable[[list[Turn], int], bool]] = {"cancellation_offer": took_offer}
# Where the agent took a taken offer back before acting on it (``_replies``).
WITHDRAWN: dict[str, Callable[[list[Turn], int], int | None]] = {"cancellation_offer": withdrew_offer}


def false_claims(
    turns: list[Turn], messages: Sequence[Message], domain: str, until: int | None = None,
    refusal_of: str | None = None, every_kind: bool = False,
) -> list[FalseClaim]:
    """Every assistant sentence before message ``until`` that asserts a claim the database contradicts. A kind
    the catalog checks only for some loopholes' refusals (``refusals_of``) is checked where ``refusal_of`` (the
    refusal's loophole id) is one of them, or ``every_kind`` asks for it, over the whole conversation."""
    loopholes = set((refusal_of or "").split("/")) - {""}
    kinds = {k.name for k in claim_kinds()[0] if every_kind or not k.refusals_of or loopholes & set(k.refusals_of)}
    if not kinds:
        return []
    return [claim for index, kind, claim in _every_false_claim(turns, messages, domain)
            if kind.name in kinds and not (until is not None and index > until and not kind.refusals_of)]


# The last conversation's false claims of every kind: strict, the variants' preconditions and the conduct
# checks each ask for a subset (by kind, before a message), which filtering the whole list gives alike, since
# each (message, kind) is judged on its own. Keyed by the turns and messages themselves (held here).
_LAST: list[tuple[tuple, str, list[tuple[int, _Kind, FalseClaim]]]] = []


def _every_false_claim(
    turns: list[Turn], messages: Sequence[Message], domain: str
) -> list[tuple[int, _Kind, FalseClaim]]:
    key = (*turns, None, *messages)
    if _LAST and _LAST[0][1] == domain and len(_LAST[0][0]) == len(key) and all(
        a is b for a, b in zip(_LAST[0][0], key, strict=True)
    ):
        return _LAST[0][2]
    states = _states(turns, messages, domain)
    found: list[tuple[int, _Kind, FalseClaim]] = []
    for t in turns:
        if t.role != "assistant" or not t.text:
            continue
        sentences = split_sentences(t.text)
        for kind in claim_kinds()[0]:
            checker = checkers().get(kind.name)
            if checker is None:
                continue
            for sentence, m in ((s, m) for s in sentences for p in kind.patterns for m in p.finditer(s)):
                if kind.not_claims is not None and kind.not_claims.search(sentence):
                    continue  # the sentence states the rule
                truth = checker(sentence, m, t.text, states[t.index])
                if truth is not None:
                    excerpt, start, end = t.excerpt(sentence)
                    acted = ACTED_ON.get(kind.name, acted_on)(turns, t.index)
                    found.append((t.index, kind, FalseClaim(kind.name, kind.what, t.index, excerpt, truth, acted,
                                                            start, end)))
                    break
    _LAST[:] = [(key, domain, found)]
    return found
