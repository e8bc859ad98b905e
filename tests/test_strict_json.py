"""A simulation's span decoded by ``strict_value`` (orjson first) is exactly what the strict stream decoder
(``_DECODER``: the json module, refusing duplicate keys, NaN and lone surrogates) makes of it: the same value,
types and key order included (compared by ``repr``: 1 is not 1.0), and the same refusals."""

from __future__ import annotations

import glob
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loophole_ingest import _jsonstream
from loophole_ingest._jsonstream import _DECODER, _lone_surrogate, _Refused, strict_value
from tests.conftest import SHARED

REFUSALS = (UnicodeDecodeError, json.JSONDecodeError, _Refused, RecursionError, ValueError)


def _reference(data: bytes) -> str:
    """What the stream's decoder makes of ``data``: the value's repr, or 'refused'."""
    try:
        text = data.decode("utf-8")
        value, stop = _DECODER.raw_decode(text)
    except REFUSALS:
        return "refused"
    if stop != len(text) or ("\\u" in text and _lone_surrogate(text)):
        return "refused"
    return repr(value)


def _ours(data: bytes) -> str:
    try:
        return repr(strict_value(data))
    except REFUSALS:
        return "refused"


TRICKY = [
    b'{"a": 1, "a": 2}',  # a duplicate key: orjson keeps the last
    b'{"a": {"b": "x:y", "c": 1, "b": "z"}}',  # nested, the dropped value holding a colon
    b'{"a": "\\u003a", "b": 1}',  # an escaped colon
    b'{"a\\u003a": 1, "a:": 2}',  # a duplicate only an escaped colon tells apart
    b'{"a": 1, "a": "\\u003a"}',  # a duplicate whose escaped colon evens the count of colons
    b'{"n": 18446744073709551616}',  # 2**64: orjson would make it a float
    b'{"n": -9223372036854775809}',  # below int64
    b'{"n": [18446744073709551616, -99999999999999999999], "m": [1, 2e+5]}',  # in a list
    b'{"n": 123456789012345678901234567890}',
    b'{"n": 18446744073709551615, "m": -9223372036854775808, "k": 9223372036854775807}',  # the edges: ints
    b'{"f": 1e400}',  # json reads inf; orjson refuses
    b'{"f": 1e16, "g": 1E+2, "h": -0, "i": -0.0, "j": 1e-7, "k": 0.1}',
    b'{"x": NaN}', b'{"x": Infinity}', b'{"x": -Infinity}',
    b'{"s": "\\ud800"}', b'{"s": "\\udc00\\ud800"}', b'{"s": "\\\\ud800"}', b'{"s": "\\ud83d\\ude00 \\u00e9"}',
    b'{"s": "\\udfff"}', b'{"s": "\\ud800\\ud800"}', b'{"s": "\\ud800\\u0041"}', b'{"s": "x\\ud800"}',
    b'{"\\ud800": 1}', b'{"s": "\\\\\\ud800"}', b'{"s": "\\uDBFF\\uDFFF"}', b'{"s": "\\ud800\\\\udc00"}',
    b'{"n": [1.5e+300, 1e+16], "s": "e+ 12e+5 :7e+9"}',  # exponents orjson writes back, none from a big integer
    b'{"s": "\xed\xa0\x80"}', b'{"s": "\xc0\x80"}', b'{"s": "\xff"}',  # not UTF-8
    b'{"s": "a\x01b"}', b'{"s": "tab\there"}', b'{"s": "del\x7f"}',
    b'{"a": 1} ', b' {"a": 1}', b'{"a": 1}{}', b'{"a": 1,}', b'{"a": 01}', b'{"a": tru}',
    b'{"deep": ' + b"[" * 300 + b"]" * 300 + b"}",  # beyond orjson's writer (255), within json's reach
    b'{"deep": ' + b"[" * 5000 + b"]" * 5000 + b"}",  # beyond both
    b"{}", b"[1, 2]", b'{"e": {}, "l": [], "u": "\\/", "q": "\\"", "c": ":,{}[]"}',
    # the messages, written apart (``CompactList``): a duplicate, a big integer or an escape in or around them
    b'{"messages": [{"a": 1}], "messages": [{"b": 2}]}', b'{"messages": [{"a": 1, "a": 2}], "x": 1}',
    b'{"messages": [], "x": {"y": 1, "y": 2}}', b'{"messages": [18446744073709551616], "x": 1}',
    b'{"messages": [{"n": 1}], "x": -99999999999999999999}', b'{"messages": [{"s": "\\u003a"}]}',
    b'{"messages": [{"s": "\\ud800"}]}', b'{"messages": {"a": 1}, "m": 2}', b'{"messages": null, "x": [1e+16]}',
    b'{"x": 1, "messages": [{"role": "user", "content": "a: b", "e": 1e-7}], "y": "messages"}',
]


@pytest.mark.parametrize("data", TRICKY)
def test_tricky_text_decodes_or_is_refused_as_the_stream_decoder_does(data):
    assert _ours(data) == _reference(data)


def test_the_refusals_are_refusals():
    # the reference itself: the cases that must be refused are (a test of the list, not of the code)
    refused = [d for d in TRICKY if _reference(d) == "refused"]
    assert b'{"a": 1, "a": 2}' in refused and b'{"s": "\\ud800"}' in refused and b'{"x": NaN}' in refused
    assert _ours(b'{"n": 18446744073709551616}') == "{'n': 18446744073709551616}"


_SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(alphabet=st.sampled_from(['a', ':', '"', "\\", "é", "😀", "\n", "\x01", ",", "}"]), max_size=6)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.sampled_from(["a", "b", "a:", ":"]), inner, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.sampled_from(["id", "x", "y:", "messages"]), _VALUES, min_size=1, max_size=4),
       dup=st.booleans(), ascii_=st.booleans())
def test_generated_values_with_and_without_duplicates(value, dup, ascii_):
    text = json.dumps(value, ensure_ascii=ascii_)
    if dup:  # the first key written again at the end, with a value holding a colon
        key = json.dumps(next(iter(value)), ensure_ascii=ascii_)
        text = text[:-1] + f', {key}: "late:value"}}'
    data = text.encode("utf-8")
    assert _ours(data) == _reference(data)


def _spans_of_shared_runs() -> list[bytes]:
    out = []
    for pattern in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json"):
        for name in sorted(glob.glob(str(SHARED / pattern)))[:6]:
            with open(name, "rb") as fh:
                sims = json.load(fh).get("simulations") or []
            out += [json.dumps(s).encode() for s in sims[:20]]
            out += [json.dumps(s, ensure_ascii=False, indent=1).encode() for s in sims[:3]]
    return out


def test_real_simulations_decode_as_the_stream_decodes_them_and_on_the_fast_path(monkeypatch):
    spans = _spans_of_shared_runs()
    assert len(spans) > 50
    expected = [_reference(s) for s in spans]

    class Unused:
        def raw_decode(self, *_: object) -> object:
            raise AssertionError("the slow decoder ran on an ordinary simulation")

    monkeypatch.setattr(_jsonstream, "_DECODER", Unused())
    assert [_ours(s) for s in spans] == expected


def test_real_simulations_carry_their_messages_text_as_orjson_writes_the_list():
    """The messages' compact text that ``strict_value`` keeps (``CompactList.compact``, which the messages column
    reuses) is exactly what orjson writes of the decoded list: the column is written as before."""
    import orjson

    carried = 0
    for data in _spans_of_shared_runs():
        messages = strict_value(data).get("messages")
        if isinstance(messages, _jsonstream.CompactList):
            assert messages.compact == orjson.dumps(list(messages))
            carried += 1
    assert carried > 50
