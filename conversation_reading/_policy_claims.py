"""Claims about the policy's own rules (#40 item 3): what travel insurance covers, one cabin for every flight
of a reservation, how many gift cards and credit cards one reservation may use, the membership bag
allowances, and a booking called recent. Like every claim kind (``_claims``), each is catalog vocabulary
(``claims.kinds``) plus a checker here; a kind without a checker fails when the catalog loads
(``_model.Claims``).

The truth is the policy (the airline's ``policy.md``), read against the database as the conversation read it
where the claim is about the user's records (their tier, the reservation's cabin, its creation time). A claim
stated as a rule ("if", "only", a decline), negated ("insurance does not waive change fees") or asked is no
claim; a checker that cannot decide from what was read says nothing."""

from __future__ import annotations

import re
from collections.abc import Callable

from conversation_reading._conversation_state import _reservation_age, _State
from conversation_reading._evidence import _CLAUSE_BREAK, asks, negated
from conversation_reading._gate import may_match
from conversation_reading._lowered_search import ascii_lowered, says
from conversation_reading._vocabulary import vocabulary
from policy_model import BAG_ALLOWANCE, INSURANCE_REASONS, PAYMENT_LIMITS, within_booking_window

Checker = Callable[[str, re.Match[str], str, _State], str | None]


_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022\u2713\u2717\u274c\u2705]|\d+[.)])")


def _words(text: str, markers: re.Pattern[str]) -> bool:
    # each word lowered is a part of an ASCII text's lowercase: where that lacks what the markers need (``_gate``),
    # no word is one, and the words are not matched one by one (#47)
    if text.isascii() and not may_match(markers, text.lower(), True):
        return False
    return any(markers.fullmatch(w.strip(".,!?\"'*()").lower()) for w in text.split())


def _stated(sentence: str, m: re.Match[str], *, whole: bool = False) -> bool:
    """The claim at ``m`` is asserted: no negator scopes over it or sits inside it ("insurance does not waive
    change fees"), no hypothetical marker opens its clause ("if the booking was made within 24 hours"), it is
    not asked and not a condition in a list. ``whole``: no negator or hypothetical anywhere in the sentence (a
    claim whose denial may follow it: "…, which is not covered")."""
    v = vocabulary()
    if negated(sentence, m.start()) or asks(sentence, m.start()) or _LIST_ITEM.match(sentence):
        return False
    clause = _CLAUSE_BREAK.split(sentence[: m.start()])[-1]
    if _words(clause, v.hypothetical) or _words(m.group(0), v.negation):
        return False
    return not whole or not (_words(sentence, v.negation) or _words(sentence, v.hypothetical)
                             or v.decline.search(sentence))


def _insurance(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if not _stated(sentence, m, whole=True):
        return None
    return (f"the policy's travel insurance gives a full refund when the user cancels for {' or '.join(sorted(INSURANCE_REASONS))} "
            "reasons; it waives no change fee or fare difference and covers no other reason")


def _one_cabin(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if not _stated(sentence, m) or vocabulary().decline.search(sentence):
        return None  # "upgrading only one leg is not possible": the rule itself
    return ("cabin class must be the same across all the flights of a reservation: changing the cabin of one "
            "segment is not possible")


_ALTERNATIVES = re.compile(r"\b(?:or|either|which|choose|prefer|one of)\b", re.IGNORECASE)
_LIMITS = {source: PAYMENT_LIMITS[source] for source in ("gift_card", "credit_card")}  # certificates: _claims


def _payment_limits(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if all(text.count(f"{source}_") <= limit for source, limit in _LIMITS.items()):
        return None  # no more ids of a kind than its limit (each id holds its prefix): most messages name none
    if not _stated(sentence, m) or says(_ALTERNATIVES, text, ascii_lowered(text)):  # by its twin (``_lowered_search``)
        return None  # methods offered as alternatives, not one plan
    for source, limit in _LIMITS.items():
        ids = set(re.findall(rf"\b{source}_\d+\b", text))
        if len(ids) > limit:
            return (f"the plan uses {len(ids)} {source.replace('_', ' ')}s ({', '.join(sorted(ids))}); the policy allows "
                    f"at most {limit} per reservation")
    return None


_NUMBER = {"no": 0, "zero": 0, "one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_CABINS = (("basic_economy", re.compile(r"\bbasic[\s-]*economy\b", re.I)),
           ("business", re.compile(r"\bbusiness\b", re.I)),
           ("economy", re.compile(r"(?<!basic )(?<!basic-)\beconomy\b", re.I)))
_TIERS = re.compile(r"\b(regular|silver|gold)\b", re.IGNORECASE)
_ALLOWANCE = BAG_ALLOWANCE  # free checked bags per passenger, by the booking user's tier and the cabin
# what is left of it, extra bags, or the allowance after an upgrade (L10 leaves open whether it follows the
# new cabin) are not the allowance the policy's table states
_NOT_ALLOWANCE = re.compile(r"\b(?:remaining|left|used|already|extra|additional|more|upgrad\w*|would)\b", re.IGNORECASE)


def _bag_allowance(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if not _stated(sentence, m) or _NOT_ALLOWANCE.search(sentence):
        return None  # what is left of the allowance, or extra bags, is not the allowance
    said = (m.group(1) or "").lower()
    count = int(said) if said.isdigit() else _NUMBER.get(said)
    named_tier = _TIERS.search(sentence)
    tier = named_tier.group(1).lower() if named_tier else str((state.user or {}).get("membership") or "").lower()
    # the cabin the sentence names next to the number (after it, else before it), else the cabin of a
    # reservation the message names; a cabin nobody named (a new booking's, say) is undecidable
    after = sentence[m.end() : m.end() + 40]
    before = sentence[: m.start()]
    low_after, low_before = ascii_lowered(after), ascii_lowered(before)  # searched by their twins (``_lowered_search``)
    near = [(says(p, after, low_after), says(p, before, low_before)) for _, p in _CABINS]
    cabin = next((c for (c, _), (a, _b) in zip(_CABINS, near, strict=True) if a), None)
    cabin = cabin or next((c for (c, _), (_a, b) in zip(_CABINS, near, strict=True) if b), None)
    res = next((r for rid, r in state.reservations.items() if rid in text), None)
    cabin = cabin or (res or {}).get("cabin")
    if count is None or tier not in _ALLOWANCE or cabin not in _ALLOWANCE[tier]:
        return None  # a tier or cabin the conversation never read or named
    each = _ALLOWANCE[tier][cabin]
    passengers = len((res or {}).get("passengers") or []) if res and res.get("cabin") == cabin else 0
    allowed = {each, each * passengers} if passengers else {each * n for n in range(1, 10)}
    if count in allowed:
        return None
    return (f"the policy gives a {tier} member {each} free checked bag(s) per {cabin.replace('_', ' ')} passenger"
            + (f" ({each * passengers} for the reservation's {passengers})" if passengers else ""))


def _booked_recently(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    if not _stated(sentence, m):
        return None
    booked = _reservation_age(sentence, state)
    if booked is None:
        return None
    res, age, now = booked
    if within_booking_window(age):
        return None  # within the window (inclusive, L9)
    hours = int(age.total_seconds()) // 3600
    return (f"reservation {res.get('reservation_id')} was created at {res['created_at']}, {hours // 24} d {hours % 24} h "
            f"before the domain's current time {now.isoformat(sep=' ')}: not within 24 hours")


POLICY_CHECKERS: dict[str, Checker] = {
    "insurance_coverage": _insurance,
    "one_cabin_per_reservation": _one_cabin,
    "payment_limits": _payment_limits,
    "bag_allowance": _bag_allowance,
    "booked_recently": _booked_recently,
}
