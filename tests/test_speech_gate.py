"""``speech`` asks one rule-out (``_speech.may_reason``: the rarest words of both its gates' alternatives, and the lines
the aside's anchored alternative may open) before its two gates (#47): where it fails, neither gate holds, on every
agent message of the shared runs and on written texts; and ``speech`` with the rule-out gives what it gives without."""

from __future__ import annotations

import re

import pytest

from conversation_reading import _normalise, _speech
from conversation_reading._gate import gateable, may_match
from conversation_reading._normalise import speech
from conversation_reading._paragraph_gate import _opens_a_line, may_match_paragraphs
from conversation_reading._speech import may_reason
from conversation_reading._vocabulary import vocabulary
from tests.conftest import normalised_agent_texts

# each of the gates' alternatives, near misses ("ok" in "book", "the users"), and a text outside ASCII
_WRITTEN = ["The user is asking for a refund.", "I should tell the customer no.", "Let me think about it.",
            "Okay, so let me look.", "Your booking\n  hmm, now I need to check.", "I booked it; ok.", "all users",
            "the customer's request", "I should not offer it.", "Let me check.", "Thanks!", "caf\u00e9: the user said",
            "\u0130 should decline", "   wait so", "theuser", ""]


def _agent_texts() -> list[str]:
    return normalised_agent_texts(*_WRITTEN)


def test_a_message_the_rule_out_fails_holds_neither_gate():
    v = vocabulary()
    ruled_out = passed = held = 0
    for text in _agent_texts():
        if not gateable(text):
            continue  # ``speech`` asks the rule-out only of a gateable text
        lowered = text.lower()
        gates = may_match(v.reasoning, lowered, True) or may_match_paragraphs(v.aside, lowered, True)
        if may_reason(v.reasoning, v.aside, lowered):
            passed += 1
            held += gates
        else:
            ruled_out += 1
            assert not gates, text
    assert ruled_out > 4000 and passed > 1000 and held > 200, (ruled_out, passed, held)  # both answers, gates held


@pytest.mark.parametrize("text", ["The user is asking.", "I should decline.", "let me reconsider", "  OK so now",
                                  "x\n\tHmm, now I need to"])
def test_each_alternative_s_words_pass_the_rule_out(text):
    v = vocabulary()
    assert may_reason(v.reasoning, v.aside, text.lower())
    assert not may_reason(v.reasoning, v.aside, "i booked your flight, ok? all users: each fare is $5.")


def test_speech_is_what_it_is_without_the_rule_out(monkeypatch):
    v = vocabulary()
    texts = _agent_texts()
    ruled = [speech(t, range(len(t) + 1), v.reasoning, v.aside, v.second_person) for t in texts]
    monkeypatch.setattr(_normalise, "may_reason", lambda deliberates, aside, lowered: True)
    assert ruled == [speech(t, range(len(t) + 1), v.reasoning, v.aside, v.second_person) for t in texts]
    assert sum(r[0] != t for r, t in zip(ruled, texts, strict=True)) >= 5  # some paragraphs are dropped


def test_the_written_out_line_test_answers_as_the_lines_own_test():
    # the rule-out tests the lines in place (a frame less a message): the same answer as ``_opens_a_line``'s test of
    # each opening and a substring test of each word, on every agent message and on texts of many lines
    v = vocabulary()
    parts = [p for p in (_speech._parts(v.reasoning, False), _speech._parts(v.aside, True)) if p is not None]
    words = {w for p in parts for w in p[0]}
    lines = [_opens_a_line(o) for p in parts for o in p[1]]
    assert words and lines
    texts = [t.lower() for t in _agent_texts() if gateable(t)] + [
        "a\n\n  \tokay so", "a\nb\n wait", "ok\nno", "a\nbook\n hm", "\n", "a\n\nalright", "x\nhmm", "x\n o k"]
    answers = [may_reason(v.reasoning, v.aside, s) for s in texts]
    assert answers == [any(w in s for w in words) or any(f(s) for f in lines) for s in texts]
    assert sum(answers) > 1000 and answers.count(False) > 4000
    # another pair asked between (the last pair's test is held): each pair keeps its own answer
    zebra = re.compile("zebra")
    for _ in range(2):
        assert not may_reason(zebra, zebra, "let me see") and may_reason(zebra, zebra, "a zebra")
        assert may_reason(v.reasoning, v.aside, "let me see") and not may_reason(v.reasoning, v.aside, "a zebra")
