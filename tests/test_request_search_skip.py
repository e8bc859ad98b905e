"""``user_requests`` reads a write's words by ``mentions`` alone, without searching the whole text first, where the
pattern looks past its match only by word boundaries (``_requests.in_context``, #47): a match in a sentence is then
one in the text, so the search it skips answers yes wherever ``mentions`` does."""

from __future__ import annotations

import re
from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading._evidence import mentions, read_turns
from conversation_reading._requests import in_context
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
