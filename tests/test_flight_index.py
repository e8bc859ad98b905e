"""The airline flight search by origin (``envs._flight_index``) answers exactly as tau2's full scan: every
search in real airline runs, replayed in place (the database as the trajectory left it), and odd arguments
(expected: the same engine with the index removed, so tau2's own method scans every flight)."""

from __future__ import annotations

import glob
import json

import pytest
from tau2.data_model.message import ToolCall
from tau2.data_model.simulation import SimulationRun

from envs import ReplayMode, engine_for, tool_call_pairs
from tests.conftest import SHARED

SEARCHES = ("search_direct_flight", "search_onestop_flight")


def _scanning(engine, run):  # noqa: ANN001, ANN202 - the engine, a callable run without the index
    index = engine.env.tools.__dict__.pop("_search_direct_flight")
    try:
        return run()
    finally:
        engine.env.tools._search_direct_flight = index


def test_the_airline_engine_has_the_index():
    assert "_search_direct_flight" in engine_for("airline").env.tools.__dict__
    assert "_search_direct_flight" not in engine_for("retail").env.tools.__dict__


def test_real_airline_runs_replay_to_the_same_outputs_and_state():
    engine = engine_for("airline")
    runs = glob.glob(str(SHARED / "real-runs" / "*airline*.json")) + glob.glob(str(SHARED / "dev-corpus" / "runs" / "*"))
    searches = 0
    for name in sorted(runs):
        with open(name, "rb") as fh:
            data = json.load(fh)
        for raw in (data.get("simulations") or [])[:15]:
            try:
                pairs = tool_call_pairs(SimulationRun.model_validate(raw).messages)
            except Exception:  # noqa: BLE001, S112 - a simulation tau2 cannot read: not this test's
                continue
            for mode in ReplayMode:
                fast = engine.replay_trajectory(pairs, mode)
                assert fast == _scanning(engine, lambda: engine.replay_trajectory(pairs, mode))  # noqa: B023
            # each search's answer itself (the replay compares it with the recorded one only)
            for tc, _ in pairs:
                if tc.name in SEARCHES:
                    assert engine._respond(tc) == _scanning(engine, lambda: engine._respond(tc))  # noqa: B023
                    searches += 1
                elif engine.tool_kind(tc.name) == "write":
                    engine._respond(tc)  # the database as the trajectory leaves it for its later searches
            engine._collect_and_restore()
    assert searches > 100


ODD = [
    {"origin": "JFK", "destination": "SFO", "date": "2024-05-16"},
    {"origin": "ZZZ", "destination": "SFO", "date": "2024-05-16"},  # no such airport
    {"origin": None, "destination": "SFO", "date": "2024-05-16"},  # no origin: every flight
    {"origin": 5, "destination": "SFO", "date": "2024-05-16"},
    {"origin": "JFK", "destination": "SFO", "date": ["2024-05-16"]},  # unhashable: tau2's TypeError
    {"origin": "JFK", "destination": "SFO", "date": "2024-13-99"},
    {"origin": "JFK", "destination": "SFO"},  # a missing argument
    {"origin": "JFK", "destination": None, "date": "2024-05-16"},
    {"origin": "JFK", "destination": 5, "date": "2024-05-16"},  # a route no flight has
    {"origin": "JFK", "destination": "ZZZ", "date": ["2024-05-16"]},  # no flight reaches the bad date
    {"origin": "JFK", "destination": "SFO", "date": "2024-05-16", "leave_after": "12:00:00"},
]


@pytest.mark.parametrize("arguments", ODD)
@pytest.mark.parametrize("name", SEARCHES)
def test_odd_arguments_answer_as_the_full_scan(name, arguments):
    engine = engine_for("airline")
    call = ToolCall(id="c1", name=name, arguments=arguments, requestor="assistant")
    try:
        assert engine._respond(call) == _scanning(engine, lambda: engine._respond(call))
    finally:
        engine._collect_and_restore()
