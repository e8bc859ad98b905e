"""A message's sentences are cut once while one conversation is read, and the cuts are dropped with the reading:
nothing keyed on a conversation's text outlives its record (a cache across conversations would make a benchmark
that repeats a file faster than a corpus of distinct conversations)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tau2.data_model.simulation import Results

from conversation_reading import _replies, _units
from conversation_reading._normalise import normalise
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


# ``_cut``'s reference: the text split into lines, each line at its sentence ends (the cut before #47 round 6).
_LINES = re.compile(r"\n+")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b\d\.)\s+")


def _cut_by_lines(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for line in _LINES.split(text) for s in _SENTENCE_END.split(line) if s.strip())


def _texts() -> list[str]:
    """Every message's content of the shared runs and both dev-corpus sets, as written and normalised."""
    files = [*sorted((SHARED / "real-runs").glob("*.json")), *sorted((SHARED / "dev-corpus" / "runs").glob("*.json")),
             *sorted((SHARED / "dev-corpus" / "other-families" / "runs").glob("*.json"))]
    out = []
    for f in files:
        for sim in json.loads(f.read_text(encoding="utf-8")).get("simulations", []):
            for m in sim["messages"]:
                if isinstance(m.get("content"), str):
                    out += [m["content"], normalise(m["content"]).text]
    return out


def test_one_scan_cuts_every_message_of_the_runs_as_the_split_of_each_line():
    texts = _texts()
    assert len(texts) > 40000
    pieces = 0
    for text in texts:
        assert _units._cut(text) == _cut_by_lines(text), text[:200]
        pieces += len(_units._cut(text))
    assert pieces > 100000


@given(st.text(alphabet=st.sampled_from(["a", "B", "1", "2", ".", "!", "?", " ", "\n", "\t", "\r", "\u2028",
                                         "\u00a0", "\x0b", ":", "-", "\u00e9", "\u0663"]), max_size=40))
@settings(max_examples=3000, deadline=None)
def test_one_scan_cuts_any_text_as_the_split_of_each_line(text):
    assert _units._cut(text) == _cut_by_lines(text)


def test_a_text_with_no_line_ending_in_a_colon_before_another_has_its_sentences_as_units(monkeypatch):
    """``_units`` returns the sentences where ``_LIST_OPENS`` finds no list opening (a gate): the same units as
    the lines read for a list after each line ending in ":"."""
    texts = _texts()
    gated = [_units._units(t) for t in texts]
    monkeypatch.setattr(_units, "_LIST_OPENS", re.compile(""))  # every text read line by line
    assert [_units._units(t) for t in texts] == gated
    assert sum(len(u) > len(_units.split_sentences(t)) for u, t in zip(gated, texts, strict=True)) > 100  # lists joined


def _units_by_regex_lines(text: str) -> list[str]:
    """``_units``'s reference: its lines split at runs of newlines by a regex, each list read on a slice of them
    (the reading before #47 round 7)."""
    units = _units.split_sentences(text)
    lines = [line for line in _LINES.split(text) if line.strip()]
    for i, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            items = []
            for nxt in lines[i + 1:]:
                if (item := _units._LIST_ITEM.match(nxt)) is None:
                    break
                items.append(nxt[item.end():].strip())
            if items:
                units.append(" ".join([_units.split_sentences(line)[-1], *items]))
    return units


def test_every_message_of_the_runs_has_the_units_of_its_lines_split_by_a_regex():
    texts = [t for t in _texts() if _units._LIST_OPENS.search(t)]
    assert len(texts) > 1000
    assert [_units._units(t) for t in texts] == [_units_by_regex_lines(t) for t in texts]


@given(st.text(alphabet=st.sampled_from(["a", "B", "1", "2", ".", ")", ":", "-", "*", "\u2022", " ", "\n", "\t", "\r",
                                         "\u2028", "\u00a0", "\x0b", "\u0663"]), max_size=40))
@settings(max_examples=3000, deadline=None)
def test_any_text_has_the_units_of_its_lines_split_by_a_regex(text):
    assert _units._units(text) == _units_by_regex_lines(text)
