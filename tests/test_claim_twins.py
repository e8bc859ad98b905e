"""A claim kind's patterns scanned by their lowercase twins over an ASCII sentence (#47 round 14,
``_claim_scan.kind_matches``) find the matches each pattern finds over the sentence itself, at the same places, and
every checker answers on a twin's match (its text lowered) as on the pattern's own: on real conversations, their
sentences in capitals, and sentences outside ASCII (scanned as they are)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from tau2.data_model.simulation import Results

from conversation_reading._claim_scan import kind_gates, kind_matches, scanned_kinds
from conversation_reading._conversation_state import _State, _states
from conversation_reading._evidence import read_turns, split_sentences
from conversation_reading._gate import gateable
from conversation_reading._lowered_search import twin
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json"))[:3]]


def _texts() -> list[tuple[str, _State]]:
    """Each agent message's text with the state before it; the same in capitals, and with a character outside
    ASCII in front (whose sentence is scanned as it is)."""
    out: list[tuple[str, _State]] = []
    for f in FILES:
        for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            messages: list[Any] = list(s.messages)
            turns = read_turns(messages)
            states = _states(turns, messages, "airline")
            out += [(x, states[t.index]) for t in turns if t.role == "assistant" and t.text
                    for x in (t.text, t.text.upper(), "\u00e9 " + t.text)]
    return out


def _read(m: re.Match[str]) -> tuple[Any, ...]:
    """What a checker may read of a match: its places, and its groups' text lowered."""
    return m.span(), [m.span(g) for g in range(len(m.groups()) + 1)], [(g or "").lower() for g in m.groups()], \
        m.group(0).lower()


def test_claim_kinds_scanned_by_their_twins_match_and_check_as_their_patterns_over_the_sentence():
    kinds, _ = scanned_kinds()
    twinned = outside = compared = false = 0
    for text, state in _texts():
        sentences = split_sentences(text)
        lowered = [s.lower() for s in sentences] if gateable(text) else None
        for kind, checker, searches, may, _ in kinds:
            found = list(kind_matches(searches, may, sentences, lowered))
            expected = [(s, m) for s in sentences for p in kind.patterns for m in p.finditer(s)]
            assert [(s, _read(m)) for s, m in found] == [(s, _read(m)) for s, m in expected], (kind.name, text)
            for (s, m), (_, reference) in zip(found, expected, strict=True):
                answer = checker(s, m, text, state)
                assert answer == checker(s, reference, text, state), (kind.name, s)
                compared += 1
                false += answer is not None
                twinned += m.string is not s
                outside += not s.isascii()
    # the twins took most matches, and the sentences outside ASCII were scanned as they are; checkers said both
    assert twinned > 1000 and outside > 30 and false > 5, (twinned, outside, compared, false)


def test_a_kinds_twins_are_compiled_when_an_ascii_sentence_first_needs_them():
    """``kind_gates`` leaves each twin for later (False); ``kind_matches`` compiles a pattern's twin when an ASCII
    sentence first passes its check, keeps it in the kind's searches, and scans a sentence outside ASCII as it is
    (no twin compiled for it); the matches are the patterns' own throughout."""
    kinds, _ = scanned_kinds()
    # the catalog's kinds again, as new kinds (``kind_gates`` holds its searches by a kind's identity): none scanned yet
    fresh = [(replace(kind), checker) for kind, checker, *_ in kinds]
    texts = [text for text, _ in _texts()]
    for kind, _ in fresh:
        searches, may = kind_gates(kind)
        assert [found for _, found, _ in searches] == [False] * len(kind.patterns), kind.name
        for text in texts:
            if not text.isascii():
                sentences = [s for s in split_sentences(text) if not s.isascii()]
                lowered = [s.lower() for s in sentences] if gateable(text) else None
                list(kind_matches(searches, may, sentences, lowered))
    foreign = [found for kind, _ in fresh for _, found, _ in kind_gates(kind)[0]]
    compiled = 0
    for kind, _ in fresh:
        searches, may = kind_gates(kind)
        for text in texts:
            sentences = split_sentences(text)
            lowered = [s.lower() for s in sentences] if gateable(text) else None
            found = list(kind_matches(searches, may, sentences, lowered))
            expected = [(s, m) for s in sentences for p in kind.patterns for m in p.finditer(s)]
            assert [(s, _read(m)) for s, m in found] == [(s, _read(m)) for s, m in expected], (kind.name, text)
        for p, held, _ in kind_gates(kind)[0]:
            assert held is False or held is twin(p), (kind.name, p.pattern)
            compiled += held is not False
    assert all(found is False for found in foreign)  # sentences outside ASCII compiled none
    assert compiled > 10 and compiled < sum(len(k.patterns) for k, _ in fresh)  # some needed, some never
