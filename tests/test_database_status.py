"""A flight's status in the pristine database, its lookup built once a domain (``_database_status``, #47), answers
as the lookup built on every status asked (``_domain.flight_status``, the path ``_claims._status`` took): every
flight and date of the airline database, dates and flights it lacks, and ``_status`` over real conversations' states."""

from __future__ import annotations

import pytest

from conversation_reading._claims import _status
from conversation_reading._conversation_state import _State, _states
from conversation_reading._database_status import database_status
from conversation_reading._domain import domain_db, flight_status
from tests.conftest import read_conversations


def _before(state: _State, number: str, date: str) -> str | None:
    """``_claims._status`` as it was: the database's lookup built for each status asked."""
    read = state.statuses.get((number, date))
    if read is not None or not state.domain:
        return read
    return flight_status(domain_db(state.domain), number, date)


def test_every_flight_and_date_of_the_database_answers_as_the_lookup_built_each_time():
    db = domain_db("airline")
    status = database_status("airline")
    assert database_status("airline") is status  # built once
    compared, answers = 0, set()
    for number, flight in db.flights.items():
        for date in [*flight.dates, "2024-01-01", "2099-12-31"]:
            expected = flight_status(db, number, date)
            assert status(number, date) == expected, (number, date)
            compared, answers = compared + 1, answers | {expected}
    assert status("HAT999", "2024-05-15") is None and flight_status(db, "HAT999", "2024-05-15") is None
    # many flights, each answer the database holds (flown, on time, delayed, cancelled...) and none at all
    assert compared > 1000 and None in answers and {"landed", "cancelled", "delayed"} <= answers, answers


@pytest.mark.parametrize("name", ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json"])
def test_a_status_as_a_conversation_read_it_answers_as_before(name):
    db = domain_db("airline")
    asked = read = 0
    for turns, messages in read_conversations(name):
        for state in _states(turns, messages, "airline"):
            legs = [*state.statuses, *((n, d) for n, f in list(db.flights.items())[:20] for d in list(f.dates)[:3])]
            for leg in legs:
                assert _status(state, *leg) == _before(state, *leg), leg
                asked, read = asked + 1, read + (leg in state.statuses)
    assert asked > 1000 and read > 10
