"""A tool result is parsed by msgspec before json (``_turn_index.TurnIndex.parsed``, #47): the value is json's own in every case
json reads (the same types, float bits and key order), ``UNPARSED`` wherever json raises ``JSONDecodeError``, and
json's other exceptions raised as it raises them. Checked on every tool result of the shared runs and on the texts
where the two parsers differ: big integers, NaN and Infinity, duplicate keys, lone surrogates, numbers past a
double's range, nesting near the stack's limit."""

from __future__ import annotations

import json
import random
import struct
from typing import Any

import pytest
from tau2.data_model.message import ToolMessage

from conversation_reading import _turn_index
from conversation_reading._turn_index import UNPARSED, TurnIndex
from tests.conftest import REAL_RUNS, _raw_run


def _same(a: Any, b: Any) -> bool:
    """Identical as values: the same types all the way down, floats bit for bit, dicts in the same key order (walked
    without recursion: a value may nest as deep as json reads)."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if struct.pack("<d", x) != struct.pack("<d", y) and not (x != x and y != y):  # noqa: PLR0124 - NaN
                return False
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            pending += zip(x, y, strict=True)
        elif isinstance(x, dict):
            if list(x) != list(y):
                return False
            pending += ((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


class _Before:
    """``TurnIndex.parsed`` as it was: ``json.loads`` called from the method's own frame (at the same depth of the
    stack as the index calls it from: json's limit on nesting is where the stack runs out)."""

    def __init__(self, content: str) -> None:
        self.content = content

    def parsed(self, index: int) -> Any:  # noqa: ARG002 - the index's signature, so both are called alike
        try:
            return json.loads(self.content)
        except json.JSONDecodeError:
            return UNPARSED


def _outcome(parse: Any) -> tuple[str, Any]:
    """What ``parse(0)`` gives: its value, or the exception it raised (part of the behaviour: the record raises it)."""
    try:
        return "value", parse(0)
    except Exception as exc:  # noqa: BLE001
        return "raised", type(exc)


def _index(content: str) -> TurnIndex:
    message = ToolMessage(id="call_1", role="tool", content="")
    message.content = content  # as a run's message holds it (a str subclass too: no validation)
    return TurnIndex([], [message])


def _agrees(content: str) -> bool:
    index, before = _index(content), _Before(content)
    want, got = _outcome(before.parsed), _outcome(index.parsed)
    if want[0] != got[0]:
        return False
    if want[1] is UNPARSED or got[1] is UNPARSED or want[0] == "raised":
        return want[1] is got[1]
    return _same(want[1], got[1])


def _tool_results(name: str) -> list[str]:
    return [m["content"] for s in _raw_run(name)["simulations"] for m in s["messages"]
            if m.get("role") == "tool" and isinstance(m.get("content"), str)]


@pytest.mark.parametrize("name", sorted(p.name for p in REAL_RUNS.glob("*.json")))
def test_every_tool_result_of_the_shared_runs_parses_as_json_parses_it(name):
    contents = _tool_results(name)
    assert len(contents) > 20
    for content in contents:
        assert _agrees(content), content[:200]
    # msgspec read them (the fast path is taken, not json after it): most results are JSON it reads as json does
    decoded = 0
    for content in contents:
        try:
            value = _turn_index._DECODER.decode(content)
        except ValueError:
            continue
        assert _same(value, json.loads(content))
        decoded += 1
    assert decoded > len(contents) // 2


EDGES = [
    # not JSON, or JSON's refusals: json raises at once or on the way (UNPARSED)
    "", " ", "\n\t ", "available", "Error: Not enough seats", "\ufeff{}", "True", "nul", "01", "1.", ".5", "+1",
    "[1,]", '{"a" 1}', '{"a":1}x', "[1,\f2]", '"\x01"', '"a\tb"', '"\\x"', '"\\u00"', "1\x00",
    # json reads these, msgspec refuses them: json's values
    "NaN", "-Infinity", "Infinity", "[NaN, 1]", '{"a": Infinity}', "1e400", "-1e400", "1.7976931348623159e308",
    '"\\ud800"', '"\\udc00\\ud800"', '["x\\udfff"]', '"\ud800"', '{"k": "\udc80"}',
    # both read them: the same value
    "18446744073709551615", "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890",
    '{"id": 340282366920938463463374607431768211457}', "9007199254740993", "9007199254740993.0", "-0", "-0.0",
    "0e0", "1e-400", "2.4703282292062328e-324", "1.7976931348623158e308", "0.30000000000000004",
    '{"a": 1, "b": 2, "a": 3}', '{"b": {"x": 1}, "a": [], "b": null}', '"\\ud83d\\ude00"', '"\\u0000\\/"',
    '"\x7f\x85\u2028"', '  {"a": [1, 2.5, -3e-5, true, false, null, "x"]}\r\n', "\n\r\t1", '"caf\u00e9 \U0001f600"',
    # json raises past a JSONDecodeError: raised as it raises
    "1" * 4301, "[" + "-" + "9" * 5000 + "]",
]


@pytest.mark.parametrize("content", EDGES)
def test_a_text_where_the_parsers_may_differ_parses_as_json_parses_it(content):
    assert _agrees(content)


def test_a_str_subclass_parses_as_json_parses_it():
    class Text(str):
        pass

    assert _agrees(Text('{"a": [1, 2]}')) and _agrees(Text("NaN")) and _agrees(Text("no"))


def test_numbers_of_every_shape_parse_to_the_same_bits():
    rng = random.Random(47)
    for _ in range(20000):
        sign = rng.choice(["", "-"])
        if rng.random() < 0.3:
            text = sign + str(rng.randint(0, 10 ** rng.randint(1, 45)))
        else:
            frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 30)))
            text = f"{sign}{rng.randint(0, 10 ** rng.randint(0, 25))}.{frac}"
            if rng.random() < 0.5:
                text += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 330))
        assert _agrees(f'{{"amount": {text}}}'), text


def _deepest(parse: Any) -> int:
    """The deepest nesting ``parse`` reads here, before it runs out of stack."""
    low, high = 1, 5000
    while low < high:
        mid = (low + high + 1) // 2
        try:
            parse("[" * mid + "]" * mid)
        except RecursionError:
            high = mid - 1
        else:
            low = mid
    return low


def test_nesting_near_the_stacks_limit_parses_or_raises_as_json_does():
    deepest = _deepest(json.loads)
    assert _deepest(_turn_index._DECODER.decode) > deepest  # msgspec alone would read what json cannot
    for depth in range(deepest - 3, deepest + 12):
        for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
            assert _agrees(text), depth
