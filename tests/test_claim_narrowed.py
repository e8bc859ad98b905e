"""A claim kind narrowed to the patterns whose bits a message's scan set (``_claim_scan.narrowed``, #47 round 16)
finds the matches the kind's every pattern finds, in the same order, and its gate passes over only messages where
none matches: on real agent messages, the same in capitals, and with a sentence outside ASCII."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tau2.data_model.simulation import Results

from conversation_reading._claim_scan import kind_matches, narrowed, scanned_kinds
from conversation_reading._evidence import read_turns, split_sentences
from conversation_reading._gate import gateable
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json"))[:4]]


def _texts() -> list[str]:
    out: list[str] = []
    for f in FILES:
        for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            messages: list[Any] = list(s.messages)
            out += [x for t in read_turns(messages) if t.role == "assistant" and t.text
                    for x in (t.text, t.text.upper(), t.text + " \u00c9t\u00e9 certificate_1.")]
    return out


def _found(pairs: Any) -> list[tuple[str, tuple[int, int], tuple[str | Any, ...]]]:
    return [(s, m.span(), m.groups()) for s, m in pairs]


def test_a_narrowed_kind_matches_and_gates_as_the_kind_with_every_pattern():
    kinds, scan = scanned_kinds()
    narrowings = dropped_matching = kept_matches = 0
    for text in _texts():
        if not gateable(text):  # the reading scans such a text whole, never narrowed
            continue
        lowered = text.lower()
        scanned = scan(lowered)
        sentences = split_sentences(text)
        said = [s.lower() for s in sentences]
        for kind, _, searches, may, mine in kinds:
            on = scanned & mine
            if on in (0, mine):
                continue  # the reading narrows only a kind some but not all of whose patterns' bits are set
            few, gate = narrowed(kind, list(searches), on)
            assert len(few) < len(searches)
            narrowings += 1
            every = _found(kind_matches(list(searches), may, sentences, said))
            assert _found(kind_matches(few, gate, sentences, said)) == every, (kind.name, text)
            # the reading's gate of the message: where the narrowed one fails, the whole kind matches nothing
            assert gate(lowered) or not every, (kind.name, text)
            kept_matches += len(every)
            # and a pattern left out matches no sentence of the message, cased as it is
            kept = {id(p) for p, _, _ in few}
            dropped_matching += sum(1 for p in kind.patterns if id(p) not in kept
                                    for s in sentences if p.search(s))
    assert dropped_matching == 0
    assert narrowings > 500 and kept_matches > 50, (narrowings, kept_matches)
