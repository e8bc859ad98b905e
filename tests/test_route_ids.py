"""A route claim's reservation ids (``_route_claims._ids``) found by a scan that skips to the next capital or digit
(#47) are the ids of the reference pattern (``_RESERVATION_ID``), on every sentence of real conversations and on
written edge cases."""

from __future__ import annotations

from conversation_reading._route_claims import _RESERVATION_ID, _ids
from conversation_reading._units import split_sentences
from tests.conftest import read_conversations

_EDGES = (
    "", "ABC123", "abc123", "ABC1234", "AB123", "ABCDEF", "123456", "X1Y2Z3, and 4R5T6Y.", "_ABC123", "ABC123_",
    "ABC12\u0663", "\u0663ABC123", "ABC123\u00e9", "\u00e9ABC123", "(ABC123)", "ABC123-DEF456", "ABC 123456 Q2W3E4",
    "ZZ9Z9Z\nQQ1QQ1", "ABCDE1 ABCDE12 A1B2C3D", "ĀBC123 ABC123Ā", "1ABCDE", "ABCDE1",
)


def test_the_ids_a_sentence_names_are_the_reference_patterns():
    checked = named = 0
    for name in ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json",
                 "whissle_retail_tau3_5sims.json"):
        for turns, _messages in read_conversations(name):
            for t in turns:
                for sentence in (t.raw, t.text, *split_sentences(t.text)):
                    assert _ids(sentence) == set(_RESERVATION_ID.findall(sentence)), sentence
                    checked += 1
                    named += bool(_ids(sentence))
    for sentence in _EDGES:
        assert _ids(sentence) == set(_RESERVATION_ID.findall(sentence)), sentence
    assert checked > 5000 and named > 300  # sentences naming ids, and many naming none
