"""The flight numbers said, read by a pattern led by the letters every flight read opens with
(``_flights_named``, #47), keep the same flights as the general reading: on every state of the shared airline runs,
the numbers said before each agent message (with the message) that are keys of the state's flights, in order, as
``_flight_numbers_in`` finds them; read on from an earlier message's as read from the start; and on written cases
(several openings, none, lowercase, text outside ASCII, a number glued to a word)."""

from __future__ import annotations

import pytest

from conversation_reading._claims import _flight_numbers_in
from conversation_reading._conversation_state import _states
from conversation_reading._flights_named import flights_lead, lead_of, named_in, said_numbers
from tests.conftest import read_conversations

_AIRLINE_RUNS = ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json")


def _kept(numbers: list[str], flights: dict) -> list[str]:
    return [n for n in numbers if n in flights]


def test_the_flights_said_a_state_holds_are_those_the_general_reading_finds_on_the_shared_runs():
    led = read = 0
    for name in _AIRLINE_RUNS:
        for turns, messages in read_conversations(name):
            states = _states(turns, messages, "airline")
            shared: dict = {}
            for t, state in zip(turns, states, strict=True):
                if t.role != "assistant" or not t.text:
                    continue
                said = state.said + "\n" + t.text
                lead = flights_lead(shared, state.flights)
                expected = _kept(_flight_numbers_in(said), state.flights)
                assert _kept(named_in(said, lead), state.flights) == expected
                assert _kept(said_numbers(shared, said, lead), state.flights) == expected  # read on
                led += lead not in (None, "")
                read += bool(expected)
    assert led > 150 and read > 50  # the literal reading is the one taken, and it finds flights


@pytest.mark.parametrize("text", [
    "\nI fly HAT170 and HAT022\nBooked: HAT0221 and AB1234 or XHAT17 or HAT17, hat171, HAT172_ (HAT173) HAT174, XHAT170 9HAT022 _HAT174.",
    "caf\u00e9HAT170 and \u00e9 HAT022 HAT17\u0663", "ABC123 HAT001 XYZ999HAT002 HAT003ABC", "", "no numbers at all"])
@pytest.mark.parametrize("flights", [{"HAT170": 1, "HAT022": 1, "HAT174": 1, "HAT003": 1}, {"HAT001": 1, "ABC123": 1},
                                     {"hat171": 1}, {"HAT1": 1}, {}, {"HAT173": 1, "HA7001": 1}])
def test_a_led_reading_keeps_every_flight_the_general_one_keeps(text, flights):
    lead = lead_of(flights)
    for pos in range(len(text) + 1):
        assert _kept(named_in(text, lead, pos), flights) == _kept(_flight_numbers_in(text, pos), flights), pos
    assert named_in(text, None) == _flight_numbers_in(text)


def test_the_lead_is_the_one_opening_of_capitals_and_the_read_on_follows_it():
    assert (lead_of({"HAT001": 1, "HAT002": 2}), lead_of({}), lead_of({"HAT001": 1, "ABC002": 1})) == ("HAT", "", None)
    assert (lead_of({"hat001": 1}), lead_of({"HA": 1}), lead_of({"H4T001": 1})) == (None, None, None)
    shared: dict = {}
    said = "\nI fly HAT170 and ABC022"
    assert said_numbers(shared, said, "HAT") == ["HAT170"]
    assert said_numbers(shared, said + "\nthen ABC456 HAT171", None) == ["HAT170", "ABC022", "ABC456", "HAT171"]
    assert said_numbers(shared, said + "\nthen ABC456 HAT171 HAT172", "HAT") == ["HAT170", "HAT171", "HAT172"]
    flights = {"HAT001": 1}
    assert flights_lead(shared, flights) == "HAT" and shared["flights lead"][0] is flights
