"""``negated``'s gate (#47, round 7): a term whose last words before it hold none of the words a marker needs is
answered without the clause split, and the answer is the split's, for every word of real sentences. Round 16: the
whole text before the term tested first (a marker is a part of it), before its last words are cut out."""

from __future__ import annotations

import pytest

import conversation_reading._evidence as evidence
from conversation_reading._evidence import negated, read_turns
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import real_run

RUNS = ["whissle_airline_tau3_1trial.json", "toolorchestra_retail_tau2_1trial.json"]
MADE = [
    "I do not think we can add a bag here today.",  # the negator the fifth word before the last
    "I do not think we can really add a bag.",  # the sixth: out of reach
    "Yes,no bag please.", "Well;never mind the bag.",  # the clause opens inside a word
    "We cannot, however, add a bag.", "If you want, we could add a bag.", "Should it fail, we add a bag.",
    "No changes - I add a bag.", "I know you now want a bag.",
]


def _sentences() -> list[str]:
    from tau2.data_model.simulation import Results

    out = list(MADE)
    for name in RUNS:
        results = Results.model_validate_json(real_run(name).read_text(encoding="utf-8"))
        out += [s for sim in results.simulations[:30] for t in read_turns(list(sim.messages))
                if t.role in ("user", "assistant") for s in split_sentences(t.text)]
    return out


def _answers(sentences: list[str]) -> list[bool]:
    v = vocabulary()
    return [negated(s, i, markers) for s in sentences for i in range(len(s) + 1) if i == 0 or s[i - 1] == " "
            for markers in (None, v.hypothetical, v.pending)]


def test_negated_with_its_gate_answers_as_the_clause_split_for_every_word(monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = _sentences()
    gated = _answers(sentences)
    monkeypatch.setattr(evidence, "may_match", lambda *_: True)  # the gate passes all: every term's clause is split
    assert gated == _answers(sentences)
    assert len(gated) > 10_000 and 50 < gated.count(True) < len(gated) // 2  # both answers, many times each
