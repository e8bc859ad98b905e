"""The figure readers test a value's type against ``_known_figures.NUMBERS`` (a tuple built once), not ``int | float``
(a union built each time the test runs, #47), and the policy model's ``items`` and ``number`` against tuples too:
each answers alike for every value the conversations' tool results hold and for the edge values (bools, NaN,
strings, None, other numbers and sequences)."""

from __future__ import annotations

import decimal
import fractions
import json
import math
from collections.abc import Iterator
from typing import Any

from conversation_reading._known_figures import NUMBERS
from policy_model._records import items, number
from tests.conftest import SHARED, real_run


def _values(node: Any) -> Iterator[Any]:
    """Every value of a JSON document, containers included."""
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _values(child)


def test_a_figure_type_test_by_the_tuple_answers_as_the_union():
    runs = [real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"), real_run("whissle_airline_tau3_1trial.json"),
            *sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:4]]
    values: list[Any] = [True, False, 0, -1, 2**70, 0.0, -0.0, math.nan, math.inf, "12", None, b"1", 1j,
                         decimal.Decimal("1.5"), fractions.Fraction(1, 3), [1], (1, 2), {"a": 1}, range(2), {1}]
    for path in runs:
        for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]:
            for m in sim["messages"]:
                if m.get("role") == "tool" and isinstance(m.get("content"), str) and m["content"][:1] in "[{":
                    values += _values(json.loads(m["content"]))
    answers = [isinstance(v, NUMBERS) for v in values]
    assert answers == [isinstance(v, int | float) for v in values]
    assert len(values) > 10_000 and answers.count(True) > 1_000 and answers.count(False) > 1_000
    # the policy model's readers, as written with the unions
    as_number = [float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None for v in values]
    assert [number(v) for v in values] == as_number  # NaN is the same object: float(nan) returns it
    assert [items({"f": v}, "f") for v in values] == [list(v) if isinstance(v, list | tuple) else [] for v in values]
    assert sum(isinstance(v, list) and len(v) > 0 for v in values) > 100
