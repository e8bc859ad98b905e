"""A reservation's route as a sentence states it, against the database (#46: facts, not phrasings): a route said
of a reservation the agent never read is invented ("DF89BM with origin JFK and destination LAX", where DF89BM
is JFK to DTW)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conversation_reading._evidence import negated

_RESERVATION_ID = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6}\b")  # the reference ``_ids`` answers as
# its candidates, six capitals or digits whole: the boundary tested behind the first character, so the engine skips to
# the next capital or digit by it, not trying the boundary and two lookaheads at every position (#47); a candidate
# holding a digit and a capital (neither all capitals nor all digits) is an id
_SIX = re.compile(r"[A-Z0-9](?<=\b[A-Z0-9])[A-Z0-9]{5}\b")
# a route set aside before it is said ("not", "you mentioned ..."), up to its start
_SET_ASIDE = re.compile(r"\b(?:not|you mentioned|you said|you asked)\b[^.!?\n]{0,30}$", re.I)
# a route said of a reservation: "origin JFK and destination LAX", "from JFK to LAX"
ROUTE = re.compile(r"\b(?:origin|from)\s+(?:airport\s+)?\(?([A-Z]{3})\)?\b[^.!?\n]{0,25}?\b(?:destination|to)\s+"
                    r"(?:airport\s+)?\(?([A-Z]{3})\)?\b")
# ``ROUTE`` led by its words' first letters, the boundary tested behind each: the engine skips to the next "o" or
# "f" by them, not trying the boundary at every position (#47); the same matches, groups and starts as ``ROUTE``
LED_ROUTE = re.compile(r"(?:o(?<=\bo)rigin|f(?<=\bf)rom)" + ROUTE.pattern.removeprefix(r"\b(?:origin|from)"))


def route_claim(reservation_of: Callable[[str], Any], sentence: str) -> tuple[str, str] | None:
    """A reservation's route stated against the database (what is true whatever was read: a route
    said of a reservation never read is invented): the sentence names one reservation id and its origin and
    destination ("DF89BM with origin JFK and destination LAX", "DF89BM from JFK to LAX"). (clause, the truth)
    where neither airport pair is the reservation's, in either direction, nor a leg of it; else None.
    ``reservation_of``: the database's record of a reservation id (None: none)."""
    m = LED_ROUTE.search(sentence)
    if m is None:  # no route said: the ids need no reading
        return None
    ids = _ids(sentence)
    if len(ids) != 1:
        return None
    res = reservation_of(next(iter(ids)))
    if res is None:
        return None

    def get(record: Any, key: str) -> Any:
        return record.get(key) if isinstance(record, dict) else getattr(record, key, None)

    said = {m.group(1), m.group(2)}
    ends = {str(get(res, "origin")), str(get(res, "destination"))}
    if all(code in sentence for code in ends) or negated(sentence, m.start()) or _SET_ASIDE.search(sentence[: m.start()]):
        return None  # the sentence also states the true route, or sets the one it names aside
    legs = {(str(get(f, "origin")), str(get(f, "destination"))) for f in get(res, "flights") or []}
    if said == ends or (m.group(1), m.group(2)) in legs or (m.group(2), m.group(1)) in legs:
        return None
    return ("reservation.route", f"{get(res, 'reservation_id')} is {get(res, 'origin')} to {get(res, 'destination')}"
            f" ({get(res, 'flight_type')}), not {m.group(1)} to {m.group(2)}")


def _ids(sentence: str) -> set[str]:
    """``set(_RESERVATION_ID.findall(sentence))``: the reservation ids the sentence names."""
    return {w for w in _SIX.findall(sentence) if not (w.isalpha() or w.isdigit())}


__all__ = ["LED_ROUTE", "ROUTE", "route_claim"]
