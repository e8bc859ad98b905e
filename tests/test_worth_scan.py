"""Whether a message no decision follows is read (``_worth_reading.worth_reading``) answers from one scan of its
lowercase (``_WORTH_SCAN``: the plain words, then each gate's rarest words) as from the gates' own substring tests
(#47), on every agent message of the shared runs and on written texts, with an act following and without."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from conversation_reading._gate import gateable, may_match
from conversation_reading._lowered_search import says
from conversation_reading._normalise import normalise
from conversation_reading._sentence_kinds import _OPTION
from conversation_reading._worth_reading import (
    _ACT,
    _IF_ACTS,
    _IF_ACTS_LOWERED,
    _STANDS_ALONE,
    _STANDS_ALONE_WORDS,
    _WORTH_SCAN,
    worth_reading,
)
from tests.conftest import REAL_RUNS, SHARED

_RUNS = sorted([*REAL_RUNS.glob("*.json"), *(SHARED / "dev-corpus" / "runs").glob("*.json"),
                *(SHARED / "dev-corpus" / "other-families" / "runs").glob("*.json")])


def _gated_only(text: str, acts_follow: bool, lowered: str, gated: bool) -> bool:
    """The reading before the scan: each gate's substring tests, then its scan (the reference)."""
    low = lowered if text.isascii() else None
    stands = (any(w in lowered for w in _STANDS_ALONE_WORDS) or may_match(_IF_ACTS, lowered, gated) and (
        _IF_ACTS.search(text) if low is None else _IF_ACTS_LOWERED.search(low)) is not None
              ) if gated else _STANDS_ALONE.search(text) is not None
    return stands or (acts_follow and bool((may_match(_OPTION, lowered, gated) and says(_OPTION, text, low))
        or (may_match(_ACT, lowered, gated) and says(_ACT, text, low))))


def _agent_texts() -> Iterator[str]:
    for path in _RUNS:
        for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]:
            for m in sim["messages"]:
                if m.get("role") == "assistant" and isinstance(m.get("content"), str):
                    if text := normalise(m["content"]).text:
                        yield text


def test_a_messages_worth_from_the_scan_is_the_gates_answer_on_real_messages():
    texts = list(_agent_texts())
    read = {True: 0, False: 0}
    bits = [0] * 4
    for text in texts:
        lowered = text.lower()
        found = _WORTH_SCAN(lowered)
        assert bool(found & 1) == any(w in lowered for w in _STANDS_ALONE_WORDS), text  # bit 1 exact
        for i, pattern in enumerate((_IF_ACTS, _OPTION, _ACT), 1):  # a gate that holds has its bit set
            assert found >> i & 1 or not may_match(pattern, lowered, True), (pattern.pattern, text)
            bits[i] += found >> i & 1
        bits[0] += found & 1
        for follows in (False, True):
            answer = worth_reading(text, follows, lowered, gateable(text))
            assert answer == _gated_only(text, follows, lowered, gateable(text)), text
            read[answer] += 1
    assert len(texts) > 5000 and min(read.values()) > 1000 and min(bits) > 200  # every part of it taken


@pytest.mark.parametrize("text", [
    "Our team can help.", "If you change it later, the fee applies.", "I can cancel the reservation for you.",
    "1. Upgrade the cabin", "We'll rebook you.", "Thanks for waiting.", "Your travel in\u017furance covers it.",
    "\u0130f you modify it", "TEAMWORK", "i'll  process it", "caf\u00e9: we can add a bag", "",
])
def test_written_texts_read_as_the_gates_read_them(text):
    for follows in (False, True):
        lowered = text.lower()
        assert worth_reading(text, follows, lowered, gateable(text)) == _gated_only(text, follows, lowered,
                                                                                    gateable(text))


def test_the_plain_words_are_the_scan_s_first_bit():
    assert _WORTH_SCAN("the insurance desk") & 1 and not _WORTH_SCAN("if you change it") & 1
    assert re.search("|".join(_STANDS_ALONE_WORDS), "the help desk")
