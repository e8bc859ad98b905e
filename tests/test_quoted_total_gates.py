"""A quoted total's gates (#47 round 8) answer as the scans they skip: a message's insurance and bag fees found once a
reading and only where their gate lets the text through are those every message's scan finds (and dropped with the
reading), and the sentence's patterns gated and searched by their twins answer as searched as they are."""

from __future__ import annotations

import re
from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading import _claims
from conversation_reading._evidence import read_turns, split_sentences
from conversation_reading._lowered_search import ascii_lowered, scans
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json"))[:2]]


def _agent_texts() -> list[str]:
    return [t.text for f in FILES for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations
            for t in read_turns(list(s.messages)) if t.role == "assistant" and t.text]


def _fees_unskipped(text: str) -> set[float]:
    return {float((m.group(1) or m.group(2)).replace(",", "")) for m in _claims._EXTRA_FEE.finditer(text)} - {0.0}


def test_a_messages_fees_gated_and_held_a_reading_are_those_every_scan_finds():
    texts = _agent_texts()
    texts += [x.upper() for x in texts[:200]] + ["Travel insurance: $0 and bag \u017fee $30", "Bags: $5"]
    expected = [_fees_unskipped(x) for x in texts]
    assert sum(bool(e) for e in expected) > 10  # the fees are there to find, and most messages have none
    assert sum(not e for e in expected) > len(texts) // 2
    with _claims.reading_flights():
        inside = [set(_claims._MESSAGE_EXTRAS(x)) for x in texts + texts]  # the second time, as held
        assert len(_claims._MESSAGE_EXTRAS.held[-1]) == len(set(texts))
    assert inside == expected + expected
    assert [set(_claims._extra_fees(x)) for x in texts] == expected  # outside a reading: computed each time
    assert _claims._MESSAGE_EXTRAS.held == []  # dropped with the reading


def test_a_quoted_totals_sentence_patterns_scanned_as_searched():
    sentences = [s for x in _agent_texts() for s in split_sentences(x)]
    sentences += ["Total for each: $5", "TOTAL PER PERSON $871 \u00d7 3", "Refund total: $40", "$871 x 3 = $2,613"]
    hits = 0
    for pattern in (_claims._NOT_FARES, _claims._PER_PASSENGER):
        for s in sentences:
            found = pattern.search(s) is not None
            assert scans(pattern, s, ascii_lowered(s)) == found, (pattern.pattern, s)
            hits += found
    assert hits > 50 and re.search(r"\btotal\b", " ".join(sentences), re.I)
