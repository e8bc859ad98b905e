"""A route said of a reservation found by ``LED_ROUTE`` (led by its words' first letters, the boundary tested behind
each, #47) is ``ROUTE``'s match: the same start, end and airports, on every sentence of real conversations and on
written edge cases."""

from __future__ import annotations

import re
from typing import Any

from conversation_reading._route_claims import LED_ROUTE, ROUTE
from tests.conftest import ROUTE_RUNS, read_sentences

_EDGES = (
    "", "from JFK to LAX", "origin JFK and destination LAX", "xfrom JFK to LAX", "_from JFK to LAX", "From JFK to LAX",
    "fromJFK to LAX", "aorigin JFK destination LAX", "\u00e9from JFK to LAX", "from from JFK to LAX",
    "DF89BM with origin JFK and destination LAX", "from airport (JFK) then on to airport (LAX).", "origin: JFK to LAX",
    "ffrom JFK to LAX, or from EWR to ORD", "oorigin JFK to SEA", "from JFK. to LAX", "f\u0663from JFK to LAX",
)


def _same(sentence: str) -> bool:
    def seen(m: re.Match[str] | None) -> tuple[tuple[int, int], tuple[str | Any, ...]] | None:
        return None if m is None else (m.span(), m.groups())
    return seen(LED_ROUTE.search(sentence)) == seen(ROUTE.search(sentence))


def test_the_led_route_finds_what_the_route_finds():
    checked = found = 0
    for sentence in read_sentences(*ROUTE_RUNS):
        assert _same(sentence), sentence
        checked += 1
        found += ROUTE.search(sentence) is not None
    for sentence in _EDGES:
        assert _same(sentence), sentence
    assert checked > 5000 and found > 100  # sentences saying a route, and many saying none
