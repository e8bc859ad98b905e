"""A rule claim's hypothetical markers (``_sentences._words``) read from a set of their words where the pattern is a
plain alternation of lowercase words and the sentence ASCII (#47), answer as each word matched whole: on every
sentence (and half sentence) of the agent texts of the shared runs and both dev-corpus sets, their uppercase, and
written edges (punctuation around a marker, a marker inside a word, text outside ASCII)."""

from __future__ import annotations

import re

from conversation_reading._sentences import _marker_words, _words
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import normalised_agent_texts

_EDGES = ["If, then", "(unless)", "\"whether\"", "x.if", "if.x", "i'f", "ONCE:", "should;", "until!?", "assuming*",
          "Should\u2019ve", "\u017fhould", "unle\u017f\u017f it is", "IF\u00a0you", "if\x1cyou", "whether\u2028or",
          "if-then", "gift", "iffy", "once-off", "", "  ", "\u0130f so"]


def _matched_whole(text: str, markers: re.Pattern[str]) -> bool:
    return any(markers.fullmatch(w.strip(".,:;!?\"'*()").lower()) for w in text.split())


def test_the_markers_read_from_their_words_answer_as_each_word_matched_whole():
    v = vocabulary()
    assert _marker_words(v.hypothetical) == {"if", "unless", "whether", "once", "should", "until", "assuming"}
    assert _marker_words(re.compile(r"(?:if|once)")) is None  # case-sensitive: matched as it is
    assert _marker_words(re.compile(r"(?:if|on\w+)", re.I)) is None
    sentences = [s for x in normalised_agent_texts() for s in split_sentences(x)]
    texts = [part for s in sentences for part in (s, s[: len(s) // 2])]
    texts += [x.upper() for x in texts[:2000]] + _EDGES
    for markers in (v.hypothetical, v.negation):  # the second a pattern of another form: the words matched whole
        expected = [_matched_whole(x, markers) for x in texts]
        assert [_words(x, markers) for x in texts] == expected, markers.pattern
        assert 100 < sum(expected) < len(texts) - 100
