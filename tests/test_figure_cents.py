"""A figure's cent without round's decimal reckoning (#47): ``_known_figures.cent`` is ``round(x, 2)``, the same value,
bits and type, and the records of real conversations reckoned with it are those reckoned with ``round``."""

from __future__ import annotations

import math
import random
import struct
from typing import Any

from conversation_reading import _itinerary_figures, _known_figures, _sentence_facts
from conversation_reading._known_figures import cent
from envs import engine_for, load_task_set
from harness.rescoring import import_sources
from loophole_scoring import golds_for, trajectory_record
from tests.conftest import real_run


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)
    return bool(a == b)


def test_a_cent_is_round_to_two_places_bit_for_bit_and_type_for_type():
    rng = random.Random(47)
    values: list[Any] = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.125, 1.005, 2.675, 0.1 + 0.2, 1e-320, 5e-324, 2.0**52,
                         2.0**53, 2.0**53 + 2, 1e22, 1e23, 1e300, -1e300, 1.7976931348623157e308, math.inf, -math.inf,
                         math.nan, 0, 5, -7, 10**30, True, False]
    for _ in range(20000):
        whole = float(rng.randint(-10**9, 10**9))
        values += [whole, whole + rng.choice((0.01, 0.005, 0.5, 0.3, -0.25)), rng.uniform(-1e6, 1e6),
                   round(rng.uniform(-1e5, 1e5), rng.randint(0, 4)), math.ldexp(rng.random(), rng.randint(-60, 1023)),
                   float(int(math.ldexp(rng.random(), rng.randint(0, 1000))))]
    assert sum(isinstance(v, float) and v.is_integer() for v in values) > 20000  # whole and fractional alike
    assert sum(isinstance(v, float) and not v.is_integer() and math.isfinite(v) for v in values) > 40000
    for v in values:
        assert _same(cent(v), round(v, 2)), v
    listed = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    assert _known_figures._cents(listed) == {round(v, 2) for v in listed}  # the set's own reckoning of each


def _records(paths: list[str]) -> list[str]:
    out = []
    for run in import_sources(paths, None, False)[0]:
        engine, tasks = engine_for(run.domain), load_task_set(run.domain, run.task_version)
        for sim in (x.sim for x in run.simulations if x.sim is not None):
            task = tasks.task(sim.task_id)
            variants, _ = golds_for(run.domain, run.task_version, task)
            record = trajectory_record(sim.messages, run.domain, run.task_version, task, engine, variants)
            out.append(record.model_dump_json())
    return out


def test_the_records_of_real_conversations_reckoned_with_a_cent_are_those_reckoned_with_round(monkeypatch):
    paths = [str(real_run("whissle_airline_tau3_1trial.json")),
             str(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"))]
    whole = [0]

    def counted(x: float) -> float:
        whole[0] += isinstance(x, float) and x.is_integer()
        return cent(x)

    for module in (_known_figures, _itinerary_figures, _sentence_facts):
        monkeypatch.setattr(module, "cent", counted)
    fast = _records(paths)
    assert whole[0] > 100  # the figures' cents are reckoned, most of them of whole dollars
    for module in (_known_figures, _itinerary_figures, _sentence_facts):
        monkeypatch.setattr(module, "cent", lambda x: round(x, 2))
    for module in (_known_figures, _sentence_facts):
        monkeypatch.setattr(module, "_cents", lambda values: {round(v, 2) for v in values})
    assert _records(paths) == fast
