"""A message's sentences are cut once while one conversation is read, and the cuts are dropped with the reading:
nothing keyed on a conversation's text outlives its record (a cache across conversations would make a benchmark
that repeats a file faster than a corpus of distinct conversations)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tau2.data_model.simulation import Results

from conversation_reading import _replies, _units
from envs import engine_for
from loophole_scoring import score_simulation
from tests.conftest import SHARED

FILE = (SHARED / "dev-corpus" / "other-families" / "runs"
        / "standard__sierra-research__tau2-bench__59d0fb96__gpt-4.1_airline_default_gpt-4.1_1trials.json")
pytestmark = pytest.mark.skipif(not FILE.is_file(), reason="the dev corpus is not here")


def test_each_text_is_cut_once_per_reading_and_again_in_the_next(monkeypatch):
    sims = Results.model_validate_json(Path(FILE).read_text(encoding="utf-8")).simulations[:2]
    cut = _units._sentences.compute
    counts: Counter[str] = Counter()

    def counted(text: str) -> tuple[str, ...]:
        if _units._sentences.held:  # a cut for the record (scoring cuts a task's texts outside it too)
            counts[text] += 1
        return cut(text)

    monkeypatch.setattr(_units._sentences, "compute", counted)
    engine = engine_for("airline")
    first = score_simulation(sims[0], "airline", "tau2", engine, None).record
    once = dict(counts)
    assert once and max(once.values()) == 1  # read by many readers, cut once
    assert _units._sentences.held == [] and _replies._AGREES.held == []  # dropped with the reading
    # the same conversation decoded again (as a file's repeated trials are: new objects, the same texts)
    again = score_simulation(sims[0].model_copy(deep=True), "airline", "tau2", engine, None).record
    assert again == first
    assert all(counts[t] == 2 for t in once)  # cut again: nothing kept from the first reading
    score_simulation(sims[1], "airline", "tau2", engine, None)
    assert _units._sentences.held == []


def test_outside_a_reading_a_cut_is_the_same_and_kept_nowhere():
    text = "Your flight is booked. 1. Change it\n2. Cancel it! Is that all?"
    outside = _units.split_sentences(text)
    with _units.reading_sentences():
        inside = _units.split_sentences(text)
        assert _units._sentences(text) is _units._sentences(text)
    assert inside == outside == list(_units._cut(text))
    assert _units._sentences.held == []
