"""``speech`` gates a message on ``may_match_paragraphs`` of the aside pattern: ``may_match``'s words, and of an
alternative anchored at a paragraph's start (``^\\s*(?:okay|ok|...)``), a line opening with one of its words. Where the
gate rules a message out, no paragraph of it matches the pattern, and ``speech`` gives what it gives ungated."""

from __future__ import annotations

import re

import pytest

from conversation_reading import _normalise
from conversation_reading._gate import gateable, may_match
from conversation_reading._normalise import speech
from conversation_reading._paragraph_gate import _opens_a_line, may_match_paragraphs
from conversation_reading._speech import _PARAGRAPH
from conversation_reading._vocabulary import vocabulary
from tests.conftest import normalised_agent_texts

# an aside at a paragraph's start, after blanks and newlines; and near misses ("ok" in "book", "so" in "also")
_MADE_UP = ["Okay, so let me look at the fare.", "Here is your booking.\n\n  Hmm, now I need to check.",
            "I booked it; also, it is refundable.", "Your booking is done.\n \n\tWait so I should ask.",
            "\n\nalright, now the refund", "Your ok so far.", "Booking:\n- ok so now done", "Please wait\nso now"]


def _agent_texts() -> list[str]:
    return normalised_agent_texts(*_MADE_UP)


def _paragraphs(text: str) -> list[str]:
    return [m.group() for m in _PARAGRAPH.finditer(text)]


def test_a_message_the_gate_rules_out_has_no_paragraph_the_aside_matches():
    aside = vocabulary().aside
    ruled_out = tighter = matched = 0
    for text in _agent_texts():
        paragraphs = _paragraphs(text)
        found = [aside.search(p) is not None for p in paragraphs]
        matched += any(found)
        for piece, answers in ((text, found), *((p, [f]) for p, f in zip(paragraphs, found, strict=True))):
            if not may_match_paragraphs(aside, piece.lower(), gateable(piece)):
                assert not any(answers), piece
                ruled_out += 1
                tighter += may_match(aside, piece.lower(), gateable(piece))
    # it sees asides, rules most texts out, and many that ``may_match`` alone lets through
    assert matched >= 5 and ruled_out > 1000 and tighter > 100, (matched, ruled_out, tighter)


def test_speech_is_what_it_is_with_may_match_alone(monkeypatch):
    v = vocabulary()
    texts = _agent_texts()
    gated = [speech(t, range(len(t) + 1), v.reasoning, v.aside, v.second_person) for t in texts]
    monkeypatch.setattr(_normalise, "may_match_paragraphs", may_match)
    assert gated == [speech(t, range(len(t) + 1), v.reasoning, v.aside, v.second_person) for t in texts]
    assert sum(g[0] != t for g, t in zip(gated, texts, strict=True)) >= 5  # some paragraphs are dropped


@pytest.mark.parametrize("source, flags", [
    (r"\bthe user\b|^\s*(?:ok|hm+)\b", re.IGNORECASE), (r"(?m)^[ \t]*wait\b", 0), (r"\A\s*?(?:okay|alright)", re.I),
])
def test_an_anchored_alternative_is_gated_on_the_lines_it_may_open(source, flags):
    pattern = re.compile(source, flags)
    for text in [*_MADE_UP, "no such words", "book it\n\n ok then", "the user", "  OK", "hmmm.", "x\nWait now"]:
        if any(pattern.search(p) for p in _paragraphs(text)):
            assert may_match_paragraphs(pattern, text.lower(), gateable(text)), (source, text)
    assert not may_match_paragraphs(pattern, "a book about waiting, okay?", True)  # words inside a line


def test_a_pattern_with_no_anchored_alternative_is_gated_as_may_match():
    pattern = re.compile(r"\blet me (?:think|check)\b", re.IGNORECASE)
    for text in ["let me think", "let me", "Let me check it", "nothing"]:
        assert may_match_paragraphs(pattern, text.lower(), True) == may_match(pattern, text.lower(), True)


def _opens_by_lines(words: tuple[str, ...], lowered: str) -> bool:
    """The reference: a line (split at "\\n") opening with one of ``words`` after ``str.lstrip``'s blanks."""
    return any(line.lstrip().startswith(words) for line in lowered.split("\n"))


def test_a_line_opening_with_a_word_is_found_as_the_lines_test_finds_it():
    words = ("alright", "hm", "ok", "okay", "wait")
    opens = _opens_a_line(words)
    # blanks of every kind ``str.lstrip`` strips, blank lines, a word inside a line, at the end, a carriage return
    made_up = ["ok", " \t ok", "book\n  ok", "x\n\u2003\u00a0wait", "x\n\x1c\x0bhm", "x\r\nok", "x\rok", "a\n\n\n",
               "no\nwords here", "\n", "", "x\n\u200bok", "\n\nalright then", "waiting\nx", "x\nokay", "x ok\nbook"]
    texts = [*made_up, *(t.lower() for t in _agent_texts())]
    found = [opens(t) for t in texts]
    assert found == [_opens_by_lines(words, t) for t in texts]
    assert sum(found) >= 10 and found.count(False) > 1000  # both answers
