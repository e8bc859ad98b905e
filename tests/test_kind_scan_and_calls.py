"""Two readings of the record cut for #47 (session 17), each against the reading it replaced, on real runs: a claim
kind narrowed to one pattern tests that pattern's gate once a sentence (``kind_matches``: ``may`` is that gate), and
a clause's first contested write is found by one loop over the conversation's calls (``first_call_of`` of
``TurnIndex.calls``), not a generator over each turn's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tau2.data_model.simulation import Results

from conversation_reading._claim_scan import kind_matches, narrowed, scanned_kinds
from conversation_reading._evidence import (
    TRANSFER_TOOL,
    Turn,
    first_call_of,
    is_read_tool,
    read_turns,
    split_sentences,
)
from conversation_reading._gate import gateable
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json"))[:4]]


def _conversations() -> list[list[Turn]]:
    out = []
    for f in FILES:
        for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            messages: list[Any] = list(s.messages)
            out.append(read_turns(messages))
    return out


def _first_call_by_turns(turns: list[Turn], names: frozenset[str] | None) -> int | None:
    """The reading replaced: each turn's calls, by a generator."""
    for t in turns:
        if t.calls and any((names is None and c.name != TRANSFER_TOOL and not is_read_tool(c.name))
                           or (names and c.name in names) for c in t.calls):
            return t.index
    return None


def test_the_first_call_of_is_the_first_turn_making_one():
    asked: list[frozenset[str] | None] = [None, frozenset(), *(k.contested for k in vocabulary().kinds.values())]
    found = 0
    for turns in _conversations():
        calls = TurnIndex(turns, []).calls
        for names in asked:
            at = first_call_of(calls, names)
            assert at == _first_call_by_turns(turns, names), names
            found += at is not None
    assert found > 50  # the runs make writes and contested ones


def _unasked(_: str) -> bool:
    raise AssertionError("a one-pattern kind's own gate asked again")


def test_a_kind_of_one_pattern_tests_its_gate_once_a_sentence():
    kinds, scan = scanned_kinds()
    scanned_kinds_of_one = matched = 0
    for turns in _conversations():
        for t in turns:
            if t.role != "assistant" or not t.text or not gateable(t.text):
                continue
            lowered = t.text.lower()
            sentences = split_sentences(t.text)
            said = [s.lower() for s in sentences]
            for kind, _, searches, may, mine in kinds:
                on = scan(lowered) & mine
                few, gate = (searches, may) if on in (0, mine) else narrowed(kind, list(searches), on)
                if len(few) != 1 or not gate(lowered):
                    continue
                scanned_kinds_of_one += 1
                (pattern, twin, _), = few
                expected = [(s, m.span()) for s, m in kind_matches(few, gate, sentences, said)]
                # the pattern's own test never asked: ``may`` answered it
                assert [(s, m.span()) for s, m in kind_matches([(pattern, twin, _unasked)], gate, sentences, said)
                        ] == expected, (kind.name, t.text[:80])
                # and the matches are the pattern's own in each sentence the gate passes
                assert expected == [(s, m.span()) for s in sentences for m in pattern.finditer(s)], kind.name
                matched += len(expected)
    assert scanned_kinds_of_one > 20 and matched > 5
