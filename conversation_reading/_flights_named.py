"""The flight numbers a text names that may be flights a conversation read (``_sentence_facts``): the checks keep
only numbers that are keys of the state's flights, and every key of the domain's flights opens with the same three
capitals ("HAT"). A pattern led by those literal letters finds the words the general one finds that open with them,
in the same order, by the engine's literal search: a quarter of the general scan's instructions over what was said
(a few thousand characters, read where a figure is checked against the itineraries, #47)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from conversation_reading._claims import _flight_numbers_in


def lead_of(flights: Mapping[str, Any]) -> str | None:
    """The three ASCII capitals every key of ``flights`` opens with; "" where there is no key (no number is one);
    None where the keys open otherwise (several openings, or not capitals): read by the general pattern."""
    leads = {k[:3] for k in flights}
    if not leads:
        return ""
    lead = leads.pop()
    return lead if not leads and len(lead) == 3 and lead.isascii() and lead.isalpha() and lead.isupper() else None


def named_in(text: str, lead: str | None, pos: int = 0) -> list[str]:
    """The flight numbers ``_flight_numbers_in(text, pos)`` finds, less those not opening with ``lead`` (None: all of
    them; "": none), in order. A number is a whole word (bounded on both sides), so no two found overlap and those
    opening with ``lead`` are found alike by a pattern that needs ``lead`` first."""
    if lead == "":
        return []
    if lead is None or not text.isascii():  # outside ASCII the general reading (a caller keeps the keys among them)
        return _flight_numbers_in(text, pos)
    return _led(lead).findall(text, pos)


@lru_cache(maxsize=8)  # by the letters that lead them: the domain's flights' (one a process), bounded for other data
def _led(lead: str) -> re.Pattern[str]:
    # the boundary before the first letter checked behind it, as ``_FLIGHT_NO_ASCII`` does
    return re.compile(f"{lead}(?<=\\b{lead})\\d{{3}}\\b", re.ASCII)


def flights_lead(shared: dict[Any, Any], flights: Mapping[str, Any]) -> str | None:
    """``lead_of(flights)``, kept in ``shared`` (one conversation's) while they are the same flights (a state's are
    shared until a tool result changes them)."""
    held = shared.get("flights lead")
    if held is None or held[0] is not flights:
        held = shared["flights lead"] = (flights, lead_of(flights))
    return held[1]


def said_numbers(shared: dict[Any, Any], said: str, lead: str | None) -> list[str]:
    """``named_in(said, lead)``. What was said grows message by message (``shared``: one conversation's): the numbers
    of what an earlier message's check read, and of the rest (past a line break, where no number is cut)."""
    before, led, numbers = shared.get("flight numbers said", ("", None, []))
    if before and led == lead and said.startswith(before) and said[len(before) : len(before) + 1] in ("", "\n"):
        numbers = numbers + named_in(said, lead, len(before))
    else:
        numbers = named_in(said, lead)
    shared["flight numbers said"] = (said, lead, numbers)
    return numbers


__all__ = ["flights_lead", "lead_of", "named_in", "said_numbers"]
