"""``user_requests`` reads a write's words by ``mentions`` alone, without searching the whole text first, where the
pattern looks past its match only by word boundaries (``_requests.in_context``, #47): a match in a sentence is then
one in the text, so the search it skips answers yes wherever ``mentions`` does."""

from __future__ import annotations

import re
from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading._evidence import mentions, read_turns
from conversation_reading._lowered_search import twin
from conversation_reading._requests import _mentioned, in_context
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*retail*.json"))[:2]]


def test_every_request_pattern_reads_only_word_boundaries_past_its_match():
    assert all(in_context(p) for p in vocabulary().requests.values())  # the skip is taken for each write


def test_a_pattern_looking_past_its_match_is_searched_first():
    behind = re.compile(r"(?<!\. )\bbook\b", re.IGNORECASE)  # a sentence's start hides the ". " before it
    text = "Thanks. Book it please"
    assert mentions(behind, text) and behind.search(text) is None  # a match in a sentence, none in the text
    assert not in_context(behind)
    for source in (r"^book", r"book(?= now)", r"(a)\1", r"(?:x(?!y))|z", r"book\Z"):
        assert not in_context(re.compile(source)), source
    assert in_context(re.compile(r"\b(?:book\w*|re(?:serv)+)\B", re.IGNORECASE))


def test_a_request_mentioned_on_real_conversations_is_found_by_the_search_it_skips():
    seen = 0
    for f in FILES:
        for sim in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            for t in read_turns(list(sim.messages)):
                if t.role != "user":
                    continue
                for pattern in vocabulary().requests.values():
                    if mentions(pattern, t.text):
                        seen += 1
                        assert pattern.search(t.text) is not None, (pattern.pattern, t.text)
    assert seen > 200


def test_a_request_read_with_the_records_lowercases_and_twin_answers_as_mentions():
    seen = said = 0
    for f in FILES:
        for sim in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            turns = read_turns(list(sim.messages))
            index = TurnIndex(turns, ())
            for t in turns:
                if t.role != "user":
                    continue
                for pattern in vocabulary().requests.values():
                    assert _mentioned(pattern, t.text, index) == mentions(pattern, t.text), (pattern.pattern, t.text)
                    fast = twin(pattern)
                    if t.text.isascii() and fast is not None:  # the twin's places are the pattern's
                        low = t.text.lower()
                        assert [m.span() for m in fast.finditer(low)] == [m.span() for m in pattern.finditer(t.text)]
                    seen += 1
                    said += mentions(pattern, t.text)
    assert seen > 2000 and said > 200
