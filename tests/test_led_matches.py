"""A pattern's matches found from the places its leading words stand (``_led_matches``, #47): the same spans and
groups as ``finditer`` on real texts, on written ones (a leading word inside a word, after a lookbehind's words,
overlapping another), and the same answer from ``agrees`` as the scan of every sentence."""

from __future__ import annotations

import re

import pytest

from conversation_reading._gate import gateable, may_match
from conversation_reading._led_matches import _at_leads, _held, leads, led_matches, may_lead
from conversation_reading._lowered_search import matches
from conversation_reading._replies import _agrees
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import lowered_texts, read_conversations

_RUNS = ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json")


def _spans(found: object) -> list[tuple[tuple[int, int], ...]]:
    return [m.regs for m in found]  # type: ignore[attr-defined]


def _catalog_patterns() -> list[re.Pattern[str]]:
    v = vocabulary()
    return [v.agreement, v.explicit_yes, v.withdrawal, v.decline, v.hypothetical, v.transfer_request]


def test_the_agreement_is_read_from_its_leading_words():
    found, find = _held(vocabulary().agreement)
    assert found is not None and find is not None  # the fast path is taken for the pattern ``agrees`` reads


def test_every_led_pattern_of_the_catalog_matches_as_its_scan_on_real_texts():
    texts = sorted(set(lowered_texts(*_RUNS)))
    assert len(texts) > 2000
    led = [p for p in _catalog_patterns() if _held(p)[1] is not None]
    assert vocabulary().agreement in led
    hits = 0
    for pattern in led:
        for low in texts:
            if not low.isascii():
                continue
            expected = _spans(matches(pattern, low, low))
            assert _spans(led_matches(pattern, low, low)) == expected, (pattern.pattern[:60], low)
            assert may_lead(pattern, low, low) or not expected  # a necessary condition
            hits += bool(expected)
    assert hits > 200  # they match real texts, not only fail on them


@pytest.mark.parametrize("text", [
    "ok", "book ok", "okay okay, ok.", "i'm sure. so sure? i am sure, sure", "make sure you're sure",
    "please proceed please do proceed", "yes yeah yesyes ye", "confirmed-confirm_confirming",
    "let's do it, let's do that", "that works fine great perfect correct i agree", "", " ", "sure",
    "not okay", "bookok ok_ _ok 9ok", "sounds goodsounds good",
])
def test_written_texts_match_as_the_scan(text):
    pattern = vocabulary().agreement
    found, find = _held(pattern)
    assert found is not None and find is not None
    for variant in (text, text.replace(" ", "_"), "q" + text, text + "!"):
        assert _spans(_at_leads(found, find, variant)) == _spans(found.finditer(variant)), variant


@pytest.mark.parametrize(("source", "words"), [
    (r"\b(?:yes|ok(?:ay)?|(?<!so )sure|please (?:do|proceed)|confirm\w*)\b", {"yes", "ok", "sure", "please ", "confirm"}),
    (r"\bcancel\w*", {"cancel"}), (r"(?:ab|cd)e", {"ab", "cd"}), (r"(?:a|b)c", None),
    (r"\b(?:yes|\w+)\b", None), (r"[ab]c", None), (r"(?i:yes)", None), (r"x*yes", None), (r"", None),
])
def test_the_leading_words_are_read_from_the_parse(source, words):
    from conversation_reading._gate import _p

    assert leads(_p.parse(source, 0)) == words


def test_agrees_answers_as_the_scan_of_every_sentence():
    v = vocabulary()

    def scanned(reply: str) -> bool:  # ``_agrees`` before #47's leading words: each sentence gated and scanned
        from conversation_reading._evidence import mentions, negated

        if re.match(r"\W*(?:no|nope|not)\b", reply, re.I) or not may_match(v.agreement, reply.lower(), gateable(reply)):
            return False
        return any(not negated(s, m.start()) for s in split_sentences(reply) if not s.rstrip().endswith("?")
                   for m in v.agreement.finditer(s)) and not mentions(v.withdrawal, reply)

    replies = [m.content for name in _RUNS for _, messages in read_conversations(name) for m in messages
               if getattr(m, "role", None) == "user" and isinstance(m.content, str)]
    replies += ["Yes, please.", "OK", "I’m sure", "Sure — go ahead", "Okay? no", "No, that's fine.", "Book it ok"]
    assert len(replies) > 300
    agreed = 0
    for reply in replies:
        assert _agrees(reply) == scanned(reply), reply
        agreed += scanned(reply)
    assert agreed > 50


@pytest.mark.parametrize(("source", "text"), [
    (r"(?:abcd|bc)", "abcd xbcx abcdbc"),  # a word inside another: reported by the DFA before it, matched after
    (r"\b(?:ab|b)\w*", "ab b cab abab"), (r"(?:ab|ba)", "ababa baba"), (r"(?<!x )(?:no|on)e?", "x none one x one"),
])
def test_the_places_are_tried_in_order_of_their_start(source, text):
    pattern = re.compile(source, re.IGNORECASE)
    found, find = _held(pattern)
    assert found is not None and find is not None
    assert _spans(led_matches(pattern, text, text.lower())) == _spans(pattern.finditer(text))


def test_a_twin_compiled_from_its_parse_is_read_by_its_scan():
    pattern = re.compile(r"\bcancel\w*", re.IGNORECASE)  # its twin: "cancel" first, the boundary after it (no source)
    found, find = _held(pattern)
    assert found is not None and found.pattern is None and find is None
    text = "Cancelled? precancel cancel"
    assert _spans(led_matches(pattern, text, text.lower())) == _spans(pattern.finditer(text))
    assert may_lead(pattern, text, text.lower())
