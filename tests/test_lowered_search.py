"""A case-insensitive pattern searched as its lowercase twin over an ASCII text's lowercase (``_lowered_search``,
#47) matches where the pattern matches the text, at the same places: every pattern the sentence readers scan so,
over every agent sentence of the real runs; a pattern whose lowercase means another pattern has no twin."""

from __future__ import annotations

import json
import re

import pytest

from conversation_reading import (
    _bag_fees,
    _invented_policy,
    _sentence_facts,
    _sentence_kinds,
    _sentences,
)
from conversation_reading._lowered_search import ascii_lowered, says, twin
from conversation_reading._normalise import normalise
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import real_run

# every case-insensitive pattern a sentence reader scans through ``says``
_SCANNED = [
    _sentence_facts._CONFIRM, _sentence_facts._OFFER, _sentence_facts._PROMISE, _sentence_facts._COMPENSATION,
    _sentence_facts._CANCEL, _sentence_facts._REFUND, _sentence_facts._CABIN, _sentence_facts._FLIGHTS,
    _sentence_facts._RULE, _sentence_facts._HEDGED, _sentence_facts._BAGS, _sentence_facts._COMPENSATION_CONTEXT,
    _sentence_facts._PER_PASSENGER, _sentence_facts._UPGRADE, *_sentence_facts._CABINS.values(),
    _sentences._RESTRICTS, _sentences._CONDITIONS, _sentences._DENIES, _sentences._POSSIBLE, _sentences._CHANGES,
    *_sentences._GENERAL_RULES.values(), _bag_fees._FREE, vocabulary().decline, _bag_fees._BAG_WORD,
    _sentence_facts._USES, _sentence_facts._HELD, _sentence_facts._PLAN, _sentence_facts._TIER, _sentences._ACT,
    _sentences._CONFIRM_ASKED, _sentences._IF_ACTS, _sentence_kinds._OPTION, _invented_policy._SOMEONE_MAY,
    _invented_policy._TIER_TEAM,
]

_OWN = ["I'll Cancel it. SHALL I PROCEED?", "We Can't Modify Basic Economy flights.", "Your BAGS: $50 Per Person",
        "Is that CORRECT? i will refund you", "The ECONOMY cabin (not basic-economy) MUST match on All flights."]


def _sentences_of(*runs: str) -> list[str]:
    """Every agent sentence of ``runs``, and every message of them whole (a message's readers scan it so)."""
    out = []
    for run in runs:
        raw = json.loads(real_run(run).read_text(encoding="utf-8"))
        for sim in raw["simulations"]:
            for m in sim["messages"]:
                if m.get("role") == "assistant" and isinstance(m.get("content"), str):
                    text = normalise(m["content"]).text
                    out += [text, *split_sentences(text)]
    return out


def test_each_scanned_pattern_matches_over_the_lowercase_where_it_matches_the_text():
    sentences = _sentences_of("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json")
    sentences += _OWN + ["caf\u00e9 \u212aelvin \u017fign: I can cancel", "\u0130STANBUL \u2014 we will upgrade"]
    assert len(sentences) > 2000 and any(not s.isascii() for s in sentences)
    matched = 0
    for pattern in _SCANNED:
        lowercase = twin(pattern)
        assert lowercase is not None, pattern.pattern  # each one is scanned over the lowercase
        for s in sentences:
            answer = pattern.search(s) is not None
            assert says(pattern, s, ascii_lowered(s)) == answer, (pattern.pattern, s)
            if s.isascii():  # the same places, too
                assert [m.span() for m in lowercase.finditer(s.lower())] == [m.span() for m in pattern.finditer(s)]
            matched += answer
    assert matched > 2000


@pytest.mark.parametrize("source, flags", [(r"\W+cancel", re.I), (r"\bno\B", re.I), (r"(?-i:I) can", re.I),
                                           ("caf\u00e9", re.I), ("I can", 0), (r"\Aok", re.I),
                                           (r"\x41bc", re.I), (r"\x4Abc", re.I), (r"\u0041bc", re.I), (r"\101bc", re.I),
                                           (r"(a)\1", re.I), (r"[A-z]x", re.I), (r"[0-Z]x", re.I)])
def test_a_pattern_whose_lowercase_means_another_has_no_twin(source, flags):
    pattern = re.compile(source, flags)
    assert twin(pattern) is None
    for text in ("I can. Cancel", "NO-cancel CAF\u00c9", "ok", "abc ABC _x aA 5x"):  # searched as it is
        assert says(pattern, text, ascii_lowered(text)) == (pattern.search(text) is not None)


def test_a_text_outside_ascii_is_searched_as_it_is():
    assert ascii_lowered("Caf\u00e9") is None and ascii_lowered("Cafe I") == "cafe i"
    pattern = re.compile(r"\bk\w+", re.I)
    assert says(pattern, "\u212aelvin", None)  # the Kelvin sign folds to "k" only under the flag

