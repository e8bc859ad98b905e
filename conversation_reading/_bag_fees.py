"""Bag fees stated in a sentence, against the policy model's allowance (#46): the free checked bags of the booking
user's tier in the cabin, per passenger (``BAG_ALLOWANCE``), and $50 for each bag beyond them (``EXTRA_BAG_FEE``).

A fee is the figure a sentence ties to bags ("Checked bag: $50", "$0 for 2 bags"), not the per-bag rule ("each
extra bag is $50"). The bags it is for are the count the sentence names, else the bag write the message's
confirmation leads to (its ``total_baggages``); the cabin and passengers are that write's, else the reservation's
the message names, else (a new booking nobody wrote yet) the cabins the message names and any count of
passengers a reservation may hold. The fee is false only where no such reading gives it: a bag called free and
charged $50 in the same confirmation, or a charge for a bag the allowance covers."""

from __future__ import annotations

import re
from typing import Any

from conversation_reading._conversation_state import _State
from conversation_reading._gate import gateable, may_match
from conversation_reading._lowered_search import ascii_lowered, says
from policy_model import BAG_ALLOWANCE, EXTRA_BAG_FEE, MAX_PASSENGERS

_BAG = r"(?:checked\s+)?(?:bags?|baggages?|luggage|suitcases?)\b"
# the amount next to a bag word, with no other cost between them (a total, a fare, insurance, a balance)
_OTHER_COST = r"(?:total|fare|flight|ticket|insurance|upgrade|cabin|refund|certificate|gift|card|balance|difference|price)"
_FEE_AFTER = re.compile(rf"\b{_BAG}(?:(?!{_OTHER_COST}|\$)[^.!?\n|]){{0,40}}?\$\s?(\d[\d,]*(?:\.\d{{1,2}})?)", re.I)
# "$50 for one bag", "$0 in bag fees"; not a figure whose listing names bags ("$7,136 (2 passengers, 3 bags)")
_FEE_BEFORE = re.compile(rf"\$\s?(\d[\d,]*(?:\.\d{{1,2}})?)(?:(?!{_OTHER_COST}|\$)[^.!?\n|(),;]){{0,30}}?\b{_BAG}", re.I)
# the per-bag rule ("$50 each", "each additional bag is $50", "$50 per bag"): the fee of one bag, not a charge
_PER_BAG = re.compile(r"\b(?:each|per|apiece|every)\b", re.I)
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "no": 0, "zero": 0}
_COUNT = re.compile(r"\b(\d+|an?|one|two|three|four|five|six|no|zero)\s+((?:(?:extra|additional|checked|free|"
                    r"non-?free|paid)\s+)*)(?:bags?|baggages?|suitcases?)\b", re.I)
_COUNT_AFTER = re.compile(r"\b(?:bags?|baggages?|suitcases?)\s*(?:\(|[x\u00d7]\s*)(\d+)\b", re.I)  # "bags (2)"
_PAID = re.compile(r"extra|additional|non-?free|paid", re.I)
_CABINS = (("basic_economy", re.compile(r"\bbasic[\s-]*economy\b", re.I)),
           ("business", re.compile(r"\bbusiness\b", re.I)),
           ("economy", re.compile(r"(?<!basic )(?<!basic-)\beconomy\b", re.I)))


# a fee of nothing said in words ("adding 2 bags won't cost anything", "at no extra charge"), not the allowance's
# adjective ("3 free checked bags")
_FREE = re.compile(r"\b(?:free of charge|at no (?:extra |additional )?(?:cost|charge)|no (?:extra |additional )?"
                   r"(?:cost|charge|fee)s?\b|(?:won't|will not|wouldn't|would not|doesn't|does not|shouldn't) cost (?:you )?"
                   r"(?:anything|a (?:thing|cent|dime)|extra)|(?:is|are|be|will be|would be) (?:free|complimentary)\b|"
                   r"(?:don't|do not|won't|will not|wouldn't) (?:have to |need to )?pay (?:anything|extra|for (?:it|them)))",
                   re.IGNORECASE)


_BAG_WORD = re.compile(_BAG, re.I)


def stated_free(sentence: str) -> bool:
    """The sentence says in words that bags cost nothing (a fee of $0), naming no amount."""
    if "$" in sentence or not may_match(_BAG_WORD, sentence.lower(), gateable(sentence)):
        return False  # the gate (``_gate``) first: most sentences name no bag
    low = ascii_lowered(sentence)  # each scan over it (``_lowered_search``)
    return says(_FREE, sentence, low) and says(_BAG_WORD, sentence, low)


def _fee_amounts(sentence: str) -> set[float]:
    """The amounts the sentence ties to bags, less the per-bag rule (a fee said in words to be nothing: 0)."""
    if stated_free(sentence):
        return {0.0}
    found = set()
    for pattern in (_FEE_AFTER, _FEE_BEFORE):
        for m in pattern.finditer(sentence):
            amount = float(m.group(1).replace(",", ""))
            if amount == EXTRA_BAG_FEE and _PER_BAG.search(sentence):
                continue  # "$50 each": the rule
            found.add(amount)
    return found


def _counts(sentence: str) -> list[tuple[int, bool]]:
    """The bag counts the sentence names, each with whether it says they are paid ("2 extra bags")."""
    out = []
    for m in _COUNT.finditer(sentence):
        word = m.group(1).lower()
        n = int(word) if word.isdigit() else _WORDS[word]
        out.append((n, bool(_PAID.search(m.group(2) or ""))))
    return out + [(int(m.group(1)), False) for m in _COUNT_AFTER.finditer(sentence)]


def _charged(tool: str, args: dict[str, Any], reservation: dict[str, Any] | None) -> tuple[int, float, set[int]] | None:
    """What the bag write charges: (new non-free bags, their fee, the counts of bags it is about: its total and
    those it adds); None: no bag write, or the bags it starts from are not known."""
    total, paid = args.get("total_baggages"), args.get("nonfree_baggages")
    if not isinstance(total, int) or not isinstance(paid, int):
        return None
    if tool == "book_reservation":
        return paid, float(EXTRA_BAG_FEE * paid), {total}
    if tool != "update_reservation_baggages" or reservation is None:
        return None
    have_total, have_paid = (int(reservation.get(k) or 0) for k in ("total_baggages", "nonfree_baggages"))
    extra = max(0, paid - have_paid)
    return extra, float(EXTRA_BAG_FEE * extra), {total, total - have_total}


def bag_fee(sentence: str, amount: float, text: str, state: _State, write: tuple[str, dict[str, Any]] | None,
            reservation: dict[str, Any] | None) -> tuple[str, str] | None:
    """Where ``amount`` is a bag fee of ``sentence`` less than the bag write the confirmation leads to charges (a
    bag called free and charged), or one the allowance gives for none of the readings of its bags: (clause, what
    the policy model says); else None (right, not a bag fee, or not decidable)."""
    if amount not in _fee_amounts(sentence):
        return None
    tier = str((state.user or {}).get("membership") or "").lower()
    if tier not in BAG_ALLOWANCE:
        return None  # the tier was never read
    tool, args = write if write is not None else ("", {})
    if tool == "update_reservation_baggages":
        reservation = state.reservations.get(str(args.get("reservation_id"))) or reservation
    counts = _counts(sentence)
    charged = _charged(tool, args, reservation)
    if charged is not None and amount < charged[1] and (not counts or any(n in charged[2] for n, _paid in counts)):
        return ("bags.extra_fee", f"the {tool} the confirmation leads to charges {charged[0]} bag(s) as non-free "
                f"(${charged[1]:g}), not ${amount:g}")
    if not counts and isinstance(args.get("total_baggages"), int):
        counts = [(args["total_baggages"], False)]
    if not counts:
        return None  # which bags the fee is for is not said
    # (cabin, passengers, bags the reservation has, of them paid): the write's, else the reservation's and a
    # new booking's in any cabin the message names
    readings: list[tuple[str, int, int, int]] = []
    if tool == "book_reservation":
        readings = [(str(args.get("cabin")), len(args.get("passengers") or []), 0, 0)]
    else:
        named = [c for c, pattern in _CABINS if pattern.search(text)]
        if reservation is not None:
            # its cabin, or one the message names it changing to (whether the allowance follows a new cabin
            # is a reading the policy leaves open: L10)
            have = [int(reservation.get(k) or 0) for k in ("total_baggages", "nonfree_baggages")]
            readings += [(c, len(reservation.get("passengers") or []), have[0], have[1])
                         for c in dict.fromkeys([str(reservation.get("cabin")), *named])]
        if tool != "update_reservation_baggages":
            readings += [(c, p, 0, 0) for c in named for p in range(1, MAX_PASSENGERS + 1)]
    if not readings or any(c not in BAG_ALLOWANCE[tier] or not p for c, p, _t, _p in readings):
        return None  # a cabin or the passengers not known
    fees: set[float] = set()
    for cabin, p, have_total, have_paid in readings:
        free = BAG_ALLOWANCE[tier][cabin] * p
        for n, paid in counts:
            # the count as the bags after the change, as those added to the reservation's or per passenger;
            # bags called extra or paid may be the ones beyond the allowance already
            for total in {n, have_total + n, n * p}:
                fees.add(float(EXTRA_BAG_FEE * max(0, max(0, total - free) - have_paid)))
            if paid:
                fees.add(float(EXTRA_BAG_FEE * n))
    if amount in fees:
        return None
    cabin, p = readings[0][0], readings[0][1]
    whom = f"{p} passenger(s)" if len(readings) == 1 else "each reading of the passengers"
    return ("bags.allowance", f"a {tier} member has {BAG_ALLOWANCE[tier][cabin]} free checked bag(s) per "
            f"{cabin.replace('_', ' ')} passenger ({whom}), and each bag beyond them is ${EXTRA_BAG_FEE}: "
            f"{counts[0][0]} bag(s) cost " + " or ".join(f"${f:g}" for f in sorted(fees)[:3]) + f", not ${amount:g}")
