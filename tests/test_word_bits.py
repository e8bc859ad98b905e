"""The message scans' one pass over a text (``_gate.word_bits``, #47: a DFA over the text's UTF-8 bytes, in place of
pyahocorasick's trie walk) answers as its definition: ``always`` with the bits of every word that is a substring of
the text. Checked with every word the two message scans and the gates read, each its own bit, on every message and
sentence of real runs, lowered as the readers lower them, and on texts outside ASCII (a lone surrogate, letters
whose UTF-8 bytes are long, a word next to them), overlapping words, and a word at either end."""

from __future__ import annotations

import pytest

from conversation_reading._gate import _words_in, needs, word_bits
from conversation_reading._message_scan import gated_patterns
from tests.conftest import lowered_texts

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


def _defined(bits: dict[str, int], always: int, text: str) -> int:
    found = always
    for word, bit in bits.items():
        if word in text:
            found |= bit
    return found


def _scan_words() -> dict[str, int]:
    """Every word of every requirement of the patterns both message scans answer for, each with a bit of its own."""
    words: set[str] = set()
    for said_by in ("assistant", "user"):
        for p in gated_patterns(said_by):
            for r in needs(p):
                words |= _words_in(r)
    return {w: 1 << i for i, w in enumerate(sorted(words))}


def test_the_scan_finds_every_word_a_text_holds_on_real_messages() -> None:
    bits = _scan_words()
    scan = word_bits(bits, 0)
    found = texts = 0
    for lowered in lowered_texts(*RUNS):
        answer = scan(lowered)
        assert answer == _defined(bits, 0, lowered), lowered
        found += bin(answer).count("1")
        texts += 1
    assert len(bits) > 200 and texts > 5000 and found > 10000  # words of both speakers' scans, found often


@pytest.mark.parametrize("text", [
    "", "x", "change", "chang", "exchange fee", "your reservation", "the reservation's change ",
    "caf\u00e9 change \u00e9t\u00e9 cancel", "\ud800cancel\udfff", "cancel\ud83d", "\u0130s there compensation",
    "\U0001f600refund\U0001f600", "\u00e7hange", "ch\u00e0nge change", "cancelcancel", "reservationreserv",
])
def test_the_scan_answers_as_substring_tests_on_edge_texts(text: str) -> None:
    bits = {**_scan_words(), "chang": 1 << 900, "change ": 1 << 901, "hange": 1 << 902, "\u00e9t\u00e9": 1 << 903}
    for always in (0, 1 << 1000):
        assert word_bits(bits, always)(text.lower()) == _defined(bits, always, text.lower())


def test_no_words_answer_always() -> None:
    assert word_bits({}, 5)("anything at all") == 5


def test_a_gate_scanning_a_large_word_group_answers_as_its_walk_on_real_messages() -> None:
    """A gate's large word groups (``_gate._scan``: one DFA pass, true where the found list is not empty) answer as the
    walk's substring tests, on every message and sentence of real runs."""
    from conversation_reading._gate import walked
    from conversation_reading._vocabulary import vocabulary

    v = vocabulary()
    patterns = [*gated_patterns("assistant"), *gated_patterns("user"), v.decline,
                *(p for kind in v.kinds.values() for p in (*kind.declined_by, *kind.subject))]
    scanning = [p for p in patterns if any(k.startswith("_a") for k in needs(p).check.__globals__)]
    assert scanning  # the catalog's decline, at least, is one large group
    held = texts = 0
    for lowered in lowered_texts(*RUNS):
        for p in scanning:
            answer = needs(p).check(lowered)
            assert answer == walked(needs(p), lowered), (p.pattern[:60], lowered)
            held += answer
        texts += 1
    assert texts > 5000 and held > 100
