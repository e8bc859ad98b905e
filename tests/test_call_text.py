"""A tool call's text in the record (``call_text_of``: the record's acts and status reads, a transfer's evidence):
its name and its arguments as ``json.dumps(arguments, ensure_ascii=False)`` writes them, cut to an excerpt. The
encoder is built once (#47 round 7); these tests hold the text to the call of ``json.dumps`` it replaced."""

from __future__ import annotations

import json

from tau2.data_model.message import ToolCall
from tau2.data_model.simulation import Results

from conversation_reading import call_text_of
from conversation_reading._evidence import excerpt_of
from tests.conftest import SHARED


def _dumped(call: ToolCall) -> str:
    return f"{call.name}({excerpt_of(json.dumps(call.arguments, ensure_ascii=False), 200)})"


def test_every_call_of_the_shared_runs_is_written_as_json_dumps_writes_it():
    calls = [c for f in sorted((SHARED / "real-runs").glob("*.json"))
             for sim in Results.model_validate_json(f.read_text(encoding="utf-8")).simulations
             for m in sim.messages if getattr(m, "tool_calls", None) for c in m.tool_calls]
    assert len(calls) > 500
    assert [call_text_of(c) for c in calls] == [_dumped(c) for c in calls]


def test_a_call_outside_ascii_nested_and_long_is_written_as_json_dumps_writes_it():
    call = ToolCall(id="1", name="book_reservation", arguments={
        "passengers": [{"first_name": "Zoë", "last_name": "Nuñez", "dob": None}], "note": "Ünïcode \u2014 \"q\"\n",
        "amount": 1e400, "nested": {"b": 2, "a": [1.5, True, False]}, "long": "x " * 150})
    assert call_text_of(call) == _dumped(call)
    assert "Zoë" in call_text_of(call) and "Infinity" in call_text_of(call)


def test_arguments_json_writes_what_json_dumps_writes_for_every_kind_of_value_and_key():
    from conversation_reading._arguments_json import arguments_json

    values = [{"a": 1, 2: "b", 1.5: None, True: [], None: {}}, {"x": float("nan"), "y": -1e400, "z": 0.1 + 0.2},
              {"s": "tab\there \u2028 \x7f \"quote\" back\\slash é 😀"}, [1, "two", {"three": [3.0]}], "top", 7, None,
              {"deep": [[{"k": [True, False, None]}]]}, {}]
    for v in values:
        assert arguments_json(v) == json.dumps(v, ensure_ascii=False)
    assert arguments_json({"a": [1, 2]}) == '{"a": [1, 2]}'  # the separators json.dumps writes


def test_the_excerpt_from_the_first_entries_is_the_excerpt_of_the_whole_text():
    """``arguments_excerpt`` stops encoding once the excerpt is decided: the same text as the whole encoding's excerpt
    wherever the cut falls (in a key, a value, a run of spaces, a separator that a collapse joins) and whatever
    follows (an entry that alone pushes past the limit, a key that is no string)."""
    from conversation_reading._arguments_json import arguments_excerpt

    def expected(v: object, limit: int) -> str:
        return excerpt_of(json.dumps(v, ensure_ascii=False), limit)

    cases: list[object] = [{}, {"a": 1}, {"a": " " * 300}, {"a": "x" * 300, 1: "y"}, {"a": "x" * 10, 1: "y" * 300}]
    for width in range(0, 60):
        cases.append({f"k{i}": ("w " * width if i % 2 else "\u2028\u00a0" * width) for i in range(8)})
        cases.append({"pad": "p" * width, "spaces": " " * 190, "tail": ["t " * 100, {"n": None}], "x": "y"})
        cases.append({"a": "z" * (190 + width % 20), "b": [1.5, float("nan")] * width, "c": "\n\t"})
        cases.append({"first": "q" * (width * 4), "then": " ", "more": " " * width, "last": "end " * 40})
    for case in cases:
        for limit in (200, 40, 5):
            assert arguments_excerpt(case, limit) == expected(case, limit), (case, limit)
    for other in ([1, "two"] * 200, "top " * 100, None, 7):
        assert arguments_excerpt(other, 200) == expected(other, 200)
