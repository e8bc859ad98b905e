"""The messages column's text (``json_text``: pydantic-core and msgspec) is exactly ``json.dumps(value,
ensure_ascii=False)``, whatever the value holds; the expected text is always json's own."""

from __future__ import annotations

import glob
import json
import math
import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loophole_store import _json_text
from loophole_store._json_text import json_text
from tests.conftest import SHARED


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


TRICKY = [
    [], {}, [{}], [[], {}, [[]]], "text", 0, None, True,
    1.192092896e-07, -1e-05, 1e16,  # a bare number: nothing before it (hypothesis found 1.192092896e-7 written)
    [{"a": 1e-05, "b": 1e-7, "c": 0.00012, "d": -2.5e-9, "e": 1e-300}],  # small numbers: Python's exponents
    [{"a": 1e16, "b": 1e22, "c": 1.5e300, "d": -0.0, "e": 0.1, "f": 100.0, "g": 123456.789}],
    [float("inf")], [{"x": -math.inf}], [math.nan],  # json writes Infinity and NaN
    [2**64, -(2**63) - 1, 10**40, 2**63 - 1],  # integers beyond 64 bits, written whole
    ["\ud800 a lone surrogate"], [{"\udc00": 1}],
    ["quotes \" and \\ backslashes, \n newlines \t tabs \x00 \x1f \x7f controls, é 中文 😀 \u2028 \ufeff"],
    [{"text: with, separators": "a: b, c", "e-mail": "one-way re-book 3e-mail 0.00001 in a string"}],
    _deep(250), _deep(300), _deep(2000),  # within pydantic-core's 254, beyond it, beyond json's reach
]


def _finite(value: object) -> bool:
    """Whether no number in ``value`` is NaN or Infinity (what strict JSON decodes to); a walk without
    recursion (the deepest values nest 2000 levels)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        todo += item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
    return True


# each value through both writers, but NaN and Infinity never through orjson's: strict JSON never decodes to them
_TRICKY_CASES = [pytest.param(value, finite, id=f"{i}-{'orjson' if finite else 'pydantic-core'}")
                 for i, value in enumerate(TRICKY) for finite in (False, True) if not finite or _finite(value)]


@pytest.mark.parametrize(("value", "finite"), _TRICKY_CASES)
def test_tricky_values_are_written_as_json_writes_them(value, finite):
    try:
        expected = _json(value)
    except RecursionError:
        with pytest.raises(RecursionError):
            json_text(value, finite)
        return
    assert json_text(value, finite) == expected


@pytest.mark.parametrize("finite", [False, True], ids=["pydantic-core", "orjson"])
def test_every_code_point_is_written_as_json_writes_it(finite):
    for lo in range(0, 0x110000, 0x4000):
        text = "".join(chr(c) for c in range(lo, lo + 0x4000) if not 0xD800 <= c <= 0xDFFF)
        assert json_text([text, {text: text}], finite) == _json([text, {text: text}])


@pytest.mark.parametrize("finite", [False, True], ids=["pydantic-core", "orjson"])
def test_random_floats_are_written_as_python_writes_them(finite):
    rng = random.Random(47)
    floats = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    floats += [rng.random() * 10 ** rng.randint(-30, 30) for _ in range(20000)]
    floats += [round(rng.uniform(-1e6, 1e6), rng.randint(0, 6)) for _ in range(20000)]
    for chunk in range(0, len(floats), 500):
        value = [{"amount": x} for x in floats[chunk:chunk + 500] if not finite or math.isfinite(x)]
        assert json_text(value, finite) == _json(value)


_SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(value=_VALUES)
def test_generated_values_are_written_as_json_writes_them(value):
    assert json_text(value) == _json(value)
    if _finite(value):
        assert json_text(value, finite=True) == _json(value)


@pytest.mark.parametrize("finite", [False, True], ids=["pydantic-core", "orjson"])
def test_real_messages_are_written_as_json_writes_them_without_json(monkeypatch, finite):
    lists = []
    for pattern in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json"):
        for name in sorted(glob.glob(str(SHARED / pattern)))[:6]:
            with open(name, "rb") as fh:
                lists += [s["messages"] for s in (json.load(fh).get("simulations") or [])[:20]]
    assert len(lists) > 50
    expected = [_json(m) for m in lists]

    class NoJson:
        @staticmethod
        def dumps(*_: object, **__: object) -> str:
            raise AssertionError("json wrote an ordinary message list")

    monkeypatch.setattr(_json_text, "json", NoJson)
    assert [json_text(m, finite) for m in lists] == expected


def test_messages_decoded_by_the_span_reader_are_written_from_the_text_they_carry(monkeypatch):
    """A span's messages carry orjson's text of them (``strict_value``): the column is written from it, without
    orjson writing the list again, and is json's text all the same."""
    from loophole_ingest._jsonstream import CompactList, strict_value

    lists = []
    for pattern in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json"):
        for name in sorted(glob.glob(str(SHARED / pattern)))[:6]:
            with open(name, "rb") as fh:
                sims = json.load(fh).get("simulations") or []
            lists += [strict_value(json.dumps(s).encode())["messages"] for s in sims[:20] if s.get("messages")]
    assert len(lists) > 50 and all(isinstance(m, CompactList) for m in lists)
    expected = [_json(list(m)) for m in lists]

    def refuse(*_: object, **__: object) -> bytes:
        raise AssertionError("orjson wrote a list that carries its text")

    monkeypatch.setattr(_json_text.orjson, "dumps", refuse)
    assert [json_text(m, finite=True) for m in lists] == expected


def test_the_rescore_row_writes_its_messages_with_orjson(monkeypatch):
    """A rescored row's messages (decoded from strict JSON) take the orjson path, and its text is json's."""
    import orjson

    from harness._rescore_rows import _trial_row
    from loophole_ingest import import_results_file

    run = import_results_file(SHARED / "real-runs" / "whissle_airline_tau3_1trial.json")
    items = list(run.iter_simulations())[:5]
    written = []
    real_dumps = orjson.dumps
    monkeypatch.setattr(_json_text.orjson, "dumps", lambda v: written.append(1) or real_dumps(v))
    for index, item in enumerate(items):
        assert _trial_row(run, index, item)["messages_json"] == _json(item.raw["messages"])
    assert len(written) == len(items)
